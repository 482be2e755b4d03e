package pbscmd

import (
	"context"
	"fmt"
	"strings"

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
	// Many ids go in batched requests; a server without them gets one
	// request per id, in order, as before.
	return forEachJobBatch(ctx, env, "qdel", operands, 1, func(s *session, ids []string) ([]error, error) {
		return s.client.DeleteMany(ctx, ids, req)
	}, func(s *session, id string) error {
		return s.client.Delete(ctx, id, req)
	})
}

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
