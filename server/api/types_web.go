package api

import (
	"context"
	"net/http"
)

// WebLoginResponse is POST /v1/web/login: a one-time link to the server's
// web page for the caller (server/web). URL holds a secret valid once and
// for a short time; Page is the page without it.
type WebLoginResponse struct {
	URL     string `json:"url"`
	Page    string `json:"page"`
	User    string `json:"user"`
	Expires int64  `json:"expires"`
}

// WebLogin asks for a login link for the calling user.
func (c *Client) WebLogin(ctx context.Context) (*WebLoginResponse, error) {
	var out WebLoginResponse
	err := c.Do(ctx, http.MethodPost, "/web/login", nil, struct{}{}, &out)
	return &out, err
}
