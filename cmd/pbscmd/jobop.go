package pbscmd

import (
	"context"
	"fmt"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// forEachJob runs op on every job operand, the way qhold, qrls, qsig,
// qalter and friends do: a malformed id is reported and skipped (code 1),
// short ids are expanded, a server refusal prints "<cmd>: <text> <id>", and
// the exit status is the last failure's. A connection failure stops at
// once.
func forEachJob(ctx context.Context, env *Env, cmd string, operands []string, op func(s *session, id string) error) int {
	s := newSession(env)
	code := 0
	for _, arg := range operands {
		id, err := model.ParseJobID(arg)
		if err != nil || id.Prefix != "" {
			fmt.Fprintf(env.Stderr, "%s: illegally formed job identifier: %s\n", cmd, arg)
			code = 1
			continue
		}
		full, err := expandJobID(ctx, s, id)
		if err == nil {
			err = op(s, full)
		}
		if err == nil {
			continue
		}
		if reportConnect(env.Stderr, cmd, err) {
			return 1
		}
		if pe, ok := model.AsPBSError(err); ok {
			fmt.Fprintf(env.Stderr, "%s: %s %s\n", cmd, pe.Msg, full)
			code = pe.ExitCode()
			continue
		}
		fmt.Fprintf(env.Stderr, "%s: %v %s\n", cmd, err, full)
		code = 1
	}
	return code
}

// printVersion handles the lone --version argument every command accepts.
func printVersion(env *Env, args []string) bool {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return true
	}
	return false
}
