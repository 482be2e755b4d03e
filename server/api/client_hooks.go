package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// WorkHooks is Work for an agent that holds hooks of version hookVersion:
// the server also answers at once when its hook_version differs, and when
// it changes during the wait.
func (c *Client) WorkHooks(ctx context.Context, host string, index, hookVersion uint64, wait time.Duration) (*WorkResponse, error) {
	q := url.Values{"host": {host}, "index": {strconv.FormatUint(index, 10)}, "wait": {wait.String()},
		"hooks": {strconv.FormatUint(hookVersion, 10)}}
	var out WorkResponse
	err := c.Do(ctx, http.MethodGet, "/agent/work", q, nil, &out)
	return &out, err
}

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
