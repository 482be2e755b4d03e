package pbscmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const qdelUsage = `usage: qdel [-W force|suppress_email=X] [-x] job_identifier...
       qdel --version
`

const qdelSpec optSpec = "W:x"

// Qdel runs qdel with args and returns the exit status: 0, or the code of
// the last operand that failed.
func Qdel(ctx context.Context, env *Env, args []string) int {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	req, operands, err := parseQdel(args)
	if err != nil {
		return reportUsage(env, "qdel", qdelUsage, err)
	}
	s := newSession(env)
	code := 0
	for _, op := range operands {
		id, err := model.ParseJobID(op)
		if err != nil {
			fmt.Fprintf(env.Stderr, "qdel: illegally formed job identifier: %s\n", op)
			code = 1
			continue
		}
		full, err := expandJobID(ctx, s, id)
		if err == nil {
			err = s.client.Delete(ctx, full, req)
		}
		if err == nil {
			continue
		}
		if reportConnect(env.Stderr, "qdel", err) {
			return 1
		}
		if pe, ok := model.AsPBSError(err); ok {
			// "<server text> <id>": texts ending in a space give
			// OpenPBS's double space.
			fmt.Fprintf(env.Stderr, "qdel: %s %s\n", pe.Msg, full)
			code = pe.ExitCode()
			continue
		}
		fmt.Fprintf(env.Stderr, "qdel: %v %s\n", err, full)
		code = 1
	}
	return code
}

// parseQdel parses qdel's options; -W takes force or suppress_email=N.
func parseQdel(args []string) (api.DeleteRequest, []string, error) {
	var req api.DeleteRequest
	var operands []string
	err := parseOptions("qdel", qdelSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		req.Purge = c.Bool("x")
		if c.IsSet("W") {
			w := c.String("W")
			switch {
			case w == "force":
				req.Force = true
			case strings.HasPrefix(w, "suppress_email="):
				// Strata sends no mail yet; accepted so scripts work.
			default:
				return errIllegalOpt('W')
			}
		}
		return nil
	})
	if err != nil {
		return req, nil, err
	}
	if len(operands) == 0 {
		return req, nil, &cmdError{Code: 2, Usage: true}
	}
	return req, operands, nil
}
