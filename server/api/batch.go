package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/strata-hpc/strata/model"
)

// Batched qhold, qrls and qdel: many job ids in one request, answered with one
// result per id in the same order. The server checks each id exactly as
// the per-job routes do and commits the ones that pass in one Raft entry.

// MaxBatchIDs bounds the ids of one batched request (the server refuses
// more); BatchChunk is how many a client sends at once.
const (
	MaxBatchIDs = 1000
	BatchChunk  = 500
)

// BatchHoldRequest is the body of POST /batch/hold and /batch/release.
type BatchHoldRequest struct {
	Holds string   `json:"holds"`
	IDs   []string `json:"ids"`
}

// BatchDeleteRequest is the body of POST /batch/delete (qdel).
type BatchDeleteRequest struct {
	Force bool     `json:"force,omitempty"`
	Purge bool     `json:"purge,omitempty"`
	IDs   []string `json:"ids"`
}

// BatchReply has one entry per requested id: nil when the job changed,
// otherwise the error the per-job route would have returned.
type BatchReply struct {
	Errors []*model.PBSError `json:"errors"`
}

// ErrNoBatch says the server predates the batched routes: the caller
// falls back to one request per id.
var ErrNoBatch = errors.New("server has no batched job operations")

// HoldMany adds holds to many jobs (qhold).
func (c *Client) HoldMany(ctx context.Context, ids []string, holds string) ([]error, error) {
	return c.batchOp(ctx, "hold", ids, func(chunk []string) any { return BatchHoldRequest{Holds: holds, IDs: chunk} })
}

// ReleaseMany removes holds from many jobs (qrls).
func (c *Client) ReleaseMany(ctx context.Context, ids []string, holds string) ([]error, error) {
	return c.batchOp(ctx, "release", ids, func(chunk []string) any { return BatchHoldRequest{Holds: holds, IDs: chunk} })
}

// DeleteMany deletes many jobs (qdel).
func (c *Client) DeleteMany(ctx context.Context, ids []string, req DeleteRequest) ([]error, error) {
	return c.batchOp(ctx, "delete", ids, func(chunk []string) any {
		return BatchDeleteRequest{Force: req.Force, Purge: req.Purge, IDs: chunk}
	})
}

// batchOp sends ids in chunks of BatchChunk and returns one error (nil on
// success) per id. A failure of a whole request is returned as the second
// value; ErrNoBatch when the server does not know the route (404, 405).
func (c *Client) batchOp(ctx context.Context, op string, ids []string, body func([]string) any) ([]error, error) {
	out := make([]error, 0, len(ids))
	for start := 0; start < len(ids); start += BatchChunk {
		chunk := ids[start:min(start+BatchChunk, len(ids))]
		var reply BatchReply
		err := c.Do(ctx, http.MethodPost, "/batch/"+op, nil, body(chunk), &reply)
		var re *RouteError
		if errors.As(err, &re) && start == 0 {
			return nil, ErrNoBatch
		}
		if err != nil {
			return out, err
		}
		if len(reply.Errors) != len(chunk) {
			return out, fmt.Errorf("batched %s: %d results for %d ids", op, len(reply.Errors), len(chunk))
		}
		for _, pe := range reply.Errors {
			if pe != nil {
				out = append(out, pe)
			} else {
				out = append(out, nil)
			}
		}
	}
	return out, nil
}

// RouteError is a 404 or 405 reply that carries no PBS error: the server
// does not have the route (an older release).
type RouteError struct {
	Status int
	Err    *model.PBSError
}

func (e *RouteError) Error() string { return e.Err.Error() }
func (e *RouteError) Unwrap() error { return e.Err }
