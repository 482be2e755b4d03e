package api

import (
	"context"
	"net/http"
	"net/url"
)

func (c *Client) jobOp(ctx context.Context, id, op string, body any) error {
	return c.Do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/"+op, nil, body, nil)
}

// Hold adds holds to a job (qhold).
func (c *Client) Hold(ctx context.Context, id string, req HoldRequest) error {
	return c.jobOp(ctx, id, "hold", req)
}

// Release removes holds from a job (qrls).
func (c *Client) Release(ctx context.Context, id string, req HoldRequest) error {
	return c.jobOp(ctx, id, "release", req)
}

// Alter changes a job's attributes (qalter).
func (c *Client) Alter(ctx context.Context, id string, req *AlterRequest) error {
	return c.jobOp(ctx, id, "alter", req)
}

// Signal sends a signal to a job (qsig).
func (c *Client) Signal(ctx context.Context, id string, req SignalRequest) error {
	return c.jobOp(ctx, id, "signal", req)
}

// Move moves a job to another queue (qmove).
func (c *Client) Move(ctx context.Context, id string, req MoveRequest) error {
	return c.jobOp(ctx, id, "move", req)
}

// Rerun requeues a running job (qrerun).
func (c *Client) Rerun(ctx context.Context, id string, req RerunRequest) error {
	return c.jobOp(ctx, id, "rerun", req)
}

// Run runs a job now (qrun).
func (c *Client) Run(ctx context.Context, id string, req RunRequest) error {
	return c.jobOp(ctx, id, "run", req)
}

// MarkNodes sets vnodes offline or back, and their comment (pbsnodes).
func (c *Client) MarkNodes(ctx context.Context, req *MarkNodesRequest) error {
	return c.Do(ctx, http.MethodPost, "/nodes/mark", nil, req, nil)
}
