package api

import (
	"context"
	"net/http"
	"net/url"
)

// OrderRequest is qorder: the job in the path and Other swap places.
type OrderRequest struct {
	Other string `json:"other"`
}

// Order swaps two jobs' places in the queue order (qorder).
func (c *Client) Order(ctx context.Context, id string, req OrderRequest) error {
	return c.jobOp(ctx, id, "order", req)
}

// JobsWithSubjobs is Jobs for qstat -t: every array parent is followed by
// all its subjobs (queued ones and finished ones included), and an id may
// name a subjob or a range of subjobs.
func (c *Client) JobsWithSubjobs(ctx context.Context, ids []string, history bool) (*JobsResponse, error) {
	q := url.Values{}
	for _, id := range ids {
		q.Add("id", id)
	}
	if history {
		q.Set("history", "1")
	}
	q.Set("subjobs", "1")
	var out JobsResponse
	err := c.Do(ctx, http.MethodGet, "/jobs", q, nil, &out)
	return &out, err
}
