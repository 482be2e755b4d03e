package pbscmd

import (
	"context"
	"errors"

	"github.com/strata-hpc/strata/server/api"
)

// batchOp sends many job ids at once and returns one error (nil on
// success) per id; the second value is a failure of the request itself.
type batchOp func(s *session, ids []string) ([]error, error)

// forEachJobBatch is forEachJob for qhold, qrls and qdel: with many
// operands the ids go to the server in a few requests (api.BatchChunk
// each), which commits each request's jobs in one Raft entry. Messages,
// their order and the exit status are forEachJob's. A server without the
// batched route gets one request per id as before, workers at a time.
func forEachJobBatch(ctx context.Context, env *Env, cmd string, operands []string, workers int, batch batchOp, op func(s *session, id string) error) int {
	if len(operands) < parallelOps {
		return forEachJob(ctx, env, cmd, operands, op)
	}
	s := newSession(env)
	items := make([]jobItem, len(operands))
	var ids []string
	var slots []int // operand index of each of ids
	for i, arg := range operands {
		items[i] = parseItem(ctx, s, arg)
		if !items[i].bad && items[i].err == nil {
			ids = append(ids, items[i].full)
			slots = append(slots, i)
		}
	}
	if len(ids) > 0 {
		results, err := batch(s, ids)
		if errors.Is(err, api.ErrNoBatch) {
			return forEachJobN(ctx, env, cmd, operands, workers, op)
		}
		for k, i := range slots {
			if k < len(results) {
				items[i].err = results[k]
			} else {
				items[i].err = err // the request carrying this id failed
			}
		}
	}
	rep := &opReporter{env: env, cmd: cmd}
	for i := range items {
		if rep.report(operands[i], items[i]) {
			break
		}
	}
	return rep.code
}
