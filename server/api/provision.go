package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/strata-hpc/strata/model"
)

// ProvisionWork asks an agent to run the provision hook on its host (hook
// mode "agent"). It rides on the work poll, so the agent needs no other
// channel; the hook script is included so the agent does not depend on the
// agent-hook delivery.
type ProvisionWork struct {
	Host    string   `json:"host"`
	Vnodes  []string `json:"vnodes"`
	AOE     string   `json:"aoe"`
	JobID   string   `json:"job_id,omitempty"`
	Attempt int      `json:"attempt"`
	// Started is when the operation started (Unix seconds); the hook's
	// alarm counts from it.
	Started int64      `json:"started"`
	Hook    model.Hook `json:"hook"`
}

// Key names one attempt of one operation (the agent's spool record).
func (p *ProvisionWork) Key() string {
	return p.Host + "-" + p.AOE + "-" + strconv.Itoa(p.Attempt) + "-" + strconv.FormatInt(p.Started, 10)
}

// ProvisionReport is an agent's report of its provision hook's exit. The
// server ignores reports about other attempts, so the agent repeats it
// until one is acknowledged.
type ProvisionReport struct {
	Host    string `json:"host"`
	Attempt int    `json:"attempt"`
	Exit    int    `json:"exit"`
	// Kind is "exit" (Exit is the hook's status), "timeout" or "nostart".
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}

// ProvisionStatus is the provisioning insight (`strata provision status`,
// qstat -Bf).
type ProvisionStatus struct {
	Enabled       bool              `json:"provision_enable"`
	Hook          string            `json:"hook,omitempty"`
	Mode          string            `json:"mode,omitempty"`
	MaxConcurrent int64             `json:"max_concurrent_provision"`
	Running       int               `json:"running"`
	Waiting       int               `json:"waiting"`
	Ops           []*model.ProvOp   `json:"operations,omitempty"`
	PerAOE        []ProvisionAOE    `json:"aoes,omitempty"`
	Stats         []*model.ProvStat `json:"hosts,omitempty"`
	Suggested     int64             `json:"suggested_max_concurrent_provision"`
	SuggestedWhy  string            `json:"suggestion_reason,omitempty"`
}

// ProvisionAOE summarizes one AOE over all hosts.
type ProvisionAOE struct {
	AOE       string `json:"aoe"`
	Successes int64  `json:"successes"`
	Failures  int64  `json:"failures"`
	// EstimateSecs is what the scheduler assumes (learned mean, or 600).
	EstimateSecs int64 `json:"estimate_secs"`
	MeanWaitSecs int64 `json:"mean_wait_secs"`
	Learned      bool  `json:"learned"`
}

// ProvisionReport sends an agent's hook result.
func (c *Client) ProvisionReport(ctx context.Context, req *ProvisionReport) error {
	return c.Do(ctx, http.MethodPost, "/agent/provision", nil, req, nil)
}

// ProvisionStatus reads the provisioning insight.
func (c *Client) ProvisionStatus(ctx context.Context) (*ProvisionStatus, error) {
	var out ProvisionStatus
	err := c.Do(ctx, http.MethodGet, "/provision", nil, nil, &out)
	return &out, err
}

// ServerProvision is the provisioning insight qstat -Bf shows as server
// attributes (ServerInfo.Provision; set only by GET /server, and only when
// a provision hook exists or provisioning has happened).
type ServerProvision struct {
	Enabled       bool           `json:"provision_enable"`
	MaxConcurrent int64          `json:"max_concurrent_provision"`
	Running       int            `json:"running"`
	Waiting       int            `json:"waiting"`
	PerAOE        []ProvisionAOE `json:"aoes,omitempty"`
	Suggested     int64          `json:"suggested_max_concurrent_provision"`
}
