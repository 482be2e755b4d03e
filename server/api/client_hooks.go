package api

import (
	"context"
	"net/http"
)

// AgentHooks fetches the hooks agents run and their version.
func (c *Client) AgentHooks(ctx context.Context) (*HooksResponse, error) {
	var out HooksResponse
	err := c.Do(ctx, http.MethodGet, "/agent/hooks", nil, nil, &out)
	return &out, err
}

// HookAction asks the server to carry out a hook's fail_action.
func (c *Client) HookAction(ctx context.Context, req *HookActionRequest) error {
	return c.Do(ctx, http.MethodPost, "/agent/hookaction", nil, req, nil)
}
