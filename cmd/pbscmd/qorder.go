package pbscmd

import (
	"context"
	"fmt"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const qorderUsage = "usage: qorder job_identifier job_identifier\n       qorder --version\n"

// Qorder runs qorder: the two jobs exchange their places in the queue
// order. Both must be whole jobs or arrays that have not started.
func Qorder(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	var operands []string
	err := parseOptions("qorder", "", "", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		return nil
	})
	if err == nil && len(operands) != 2 {
		err = &cmdError{Code: 2, Usage: true}
	}
	if err != nil {
		return reportUsage(env, "qorder", qorderUsage, err)
	}
	other, err := model.ParseJobID(operands[1])
	if err != nil || other.Prefix != "" {
		fmt.Fprintf(env.Stderr, "qorder: illegally formed job identifier: %s\n", operands[1])
		return 1
	}
	return forEachJob(ctx, env, "qorder", operands[:1], func(s *session, id string) error {
		full, err := expandJobID(ctx, s, other)
		if err != nil {
			return err
		}
		ac, err := arrayClient(s)
		if err != nil {
			return err
		}
		return ac.Order(ctx, id, api.OrderRequest{Other: full})
	})
}

// arrayServer is the part of the API that arrays and qorder added. It is
// kept out of Server so that test doubles need not implement it; a client
// without it reports the request as unsupported.
type arrayServer interface {
	Order(ctx context.Context, id string, req api.OrderRequest) error
	JobsWithSubjobs(ctx context.Context, ids []string, history bool) (*api.JobsResponse, error)
}

var _ arrayServer = (*api.Client)(nil)

func arrayClient(s *session) (arrayServer, error) {
	if a, ok := s.client.(arrayServer); ok {
		return a, nil
	}
	return nil, model.Err(model.PBSENoSupport)
}
