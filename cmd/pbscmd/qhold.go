package pbscmd

import (
	"context"
	"strings"

	"github.com/strata-hpc/strata/server/api"
)

const (
	qholdUsage = "usage: qhold [-h hold_list] job_identifier...\n       qhold --version\n"
	qrlsUsage  = "usage: qrls [-h hold_list] job_identifier...\n       qrls --version\n"
)

// Qhold runs qhold: add holds (default u) to each job.
func Qhold(ctx context.Context, env *Env, args []string) int {
	return holdCommand(ctx, env, "qhold", qholdUsage, args, func(s *session, id string, h api.HoldRequest) error {
		return s.client.Hold(ctx, id, h)
	}, func(s *session, ids []string, holds string) ([]error, error) {
		return s.client.HoldMany(ctx, ids, holds)
	})
}

// Qrls runs qrls: remove holds (default u) from each job.
func Qrls(ctx context.Context, env *Env, args []string) int {
	return holdCommand(ctx, env, "qrls", qrlsUsage, args, func(s *session, id string, h api.HoldRequest) error {
		return s.client.Release(ctx, id, h)
	}, func(s *session, ids []string, holds string) ([]error, error) {
		return s.client.ReleaseMany(ctx, ids, holds)
	})
}

func holdCommand(ctx context.Context, env *Env, cmd, usage string, args []string, op func(*session, string, api.HoldRequest) error, many func(*session, []string, string) ([]error, error)) int {
	if printVersion(env, args) {
		return 0
	}
	var holds string
	var operands []string
	err := parseOptions(cmd, qholdSpec, "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		holds = "u"
		if c.IsSet(flagName('h')) {
			holds = c.String(flagName('h'))
		}
		if !validHoldList(holds) {
			return errIllegalOpt('h')
		}
		return nil
	})
	if err == nil && len(operands) == 0 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, cmd, usage, err)
	}
	return forEachJobBatch(ctx, env, cmd, operands, parallelOps, func(s *session, ids []string) ([]error, error) {
		return many(s, ids, holds)
	}, func(s *session, id string) error {
		return op(s, id, api.HoldRequest{Holds: holds})
	})
}

// validHoldList: any mix of u, o, s, or n alone, or p alone.
func validHoldList(h string) bool {
	if h == "n" || h == "p" {
		return h == "n"
	}
	return h != "" && strings.Trim(h, "uos") == ""
}
