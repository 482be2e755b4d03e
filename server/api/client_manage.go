package api

import (
	"context"
	"net/url"

	"github.com/strata-hpc/strata/model"
)

// Manage sends one qmgr operation.
func (c *Client) Manage(ctx context.Context, req *model.ManagerRequest) error {
	return c.Do(ctx, "POST", "/manage", nil, req, nil)
}

// Describe lists configuration objects of one type (all of them without
// names). content asks for hook scripts (managers only).
func (c *Client) Describe(ctx context.Context, object string, names []string, content bool) (*DescribeResponse, error) {
	q := url.Values{"object": {object}}
	for _, n := range names {
		q.Add("name", n)
	}
	if content {
		q.Set("content", "1")
	}
	var out DescribeResponse
	if err := c.Do(ctx, "GET", "/manage", q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
