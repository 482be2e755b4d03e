package api

import (
	"context"
	"net/http"
)

// FairshareEntry is one node of the share tree as pbsfs prints it.
type FairshareEntry struct {
	Name   string  `json:"name"`
	Parent string  `json:"parent,omitempty"`
	Depth  int     `json:"depth"`
	Shares int64   `json:"shares"`
	Perc   float64 `json:"perc"` // fraction of the machine, 0..1
	Usage  float64 `json:"usage"`
	Factor float64 `json:"factor"`
	Rank   int     `json:"rank,omitempty"` // 1 is the most deserving entity
}

// FairshareResponse is the share tree with usage (GET /v1/fairshare).
type FairshareResponse struct {
	Enabled     bool             `json:"fair_share"`
	Entity      string           `json:"fairshare_entity"`
	UsageRes    string           `json:"fairshare_usage_res"`
	DecayTime   int64            `json:"fairshare_decay_time"`
	DecayFactor float64          `json:"fairshare_decay_factor"`
	LastDecay   int64            `json:"last_decay,omitempty"`
	Entries     []FairshareEntry `json:"entries"`
}

// FairshareRequest changes usage (POST /v1/fairshare, managers only): Op
// is "set" (Entity, Usage), "decay", "trim" or "reset".
type FairshareRequest struct {
	Op     string  `json:"op"`
	Entity string  `json:"entity,omitempty"`
	Usage  float64 `json:"usage,omitempty"`
}

// Fairshare returns the share tree and its usage.
func (c *Client) Fairshare(ctx context.Context) (*FairshareResponse, error) {
	var out FairshareResponse
	err := c.Do(ctx, http.MethodGet, "/fairshare", nil, nil, &out)
	return &out, err
}

// ChangeFairshare sets, decays, trims or resets usage.
func (c *Client) ChangeFairshare(ctx context.Context, req FairshareRequest) error {
	return c.Do(ctx, http.MethodPost, "/fairshare", nil, req, nil)
}
