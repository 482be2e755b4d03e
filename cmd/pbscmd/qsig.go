package pbscmd

import (
	"context"

	"github.com/strata-hpc/strata/server/api"
)

const qsigUsage = "usage: qsig [-s signal] job_identifier...\n       qsig --version\n"

// Qsig runs qsig: send a signal (default SIGTERM) to each running job;
// suspend and resume are for operators.
func Qsig(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	sig := "SIGTERM"
	var operands []string
	err := parseOptions("qsig", qsigSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		if c.IsSet("s") {
			sig = c.String("s")
			if sig == "" {
				return errIllegalOpt('s')
			}
		}
		return nil
	})
	if err == nil && len(operands) == 0 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, "qsig", qsigUsage, err)
	}
	return forEachJob(ctx, env, "qsig", operands, func(s *session, id string) error {
		return s.client.Signal(ctx, id, api.SignalRequest{Signal: sig})
	})
}
