package pbscmd

import (
	"context"
	"fmt"

	"github.com/strata-hpc/strata/server/api"
)

const rdelUsage = `usage: pbs_rdel resv_id...
       pbs_rdel --version
`

// Rdel runs pbs_rdel: each operand is deleted with its queue and jobs;
// silent on success, "pbs_rdel: <text> <id>" per failure, the last
// failure's code as exit status.
func Rdel(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	g, err := normalizeGetopt("", args)
	if err != nil || len(g.Operands) == 0 {
		fmt.Fprint(env.Stderr, rdelUsage)
		return 2
	}
	s := newSession(env)
	client, ok := s.client.(resvServer)
	if !ok {
		fmt.Fprintln(env.Stderr, "pbs_rdel: reservations are not supported by this server connection")
		return 1
	}
	code := 0
	for _, op := range g.Operands {
		id, err := expandResvID(ctx, s, op)
		if err != nil {
			fmt.Fprintf(env.Stderr, "pbs_rdel: %v\n", err)
			code = 1
			continue
		}
		if err := client.DeleteResv(ctx, id); err != nil {
			if reportConnect(env.Stderr, "pbs_rdel", err) {
				return 1
			}
			code = reportResvErr(env, "pbs_rdel", err, id)
		}
	}
	return code
}
