package api

import (
	"context"
	"net/http"
	"time"
)

// The multiplexed agent routes of `strata mom --simulate`: one process
// speaks for many simulated hosts (a simulator certificate), so the
// periodic and long-polling requests carry every host at once instead of
// one request per host. Registration, provisioning reports and the hosts'
// job events use the ordinary agent routes and handlers per host; these
// routes only batch them. The server checks every host named against the
// certificate, as for a single agent.

// SimHeartbeatRequest carries one heartbeat per simulated host.
type SimHeartbeatRequest struct {
	Hosts []HeartbeatRequest `json:"hosts"`
}

// SimHeartbeatResponse lists the hosts the server does not know or has
// marked down: each must register again (a single agent's heartbeat is
// answered "unknown node" for the same reason).
type SimHeartbeatResponse struct {
	Register []string `json:"register,omitempty"`
}

// SimWorkRequest is one long poll for many hosts: Hosts maps each host to
// the work index of its last answer (0: never answered).
type SimWorkRequest struct {
	Hosts map[string]uint64 `json:"hosts"`
	// Wait is how long the server may hold the poll (a Go duration).
	Wait string `json:"wait"`
}

// SimWorkResponse holds the work of every host whose index moved; hosts
// left out have nothing new.
type SimWorkResponse struct {
	Hosts map[string]*WorkResponse `json:"hosts"`
}

// SimEventsRequest batches the job events of many hosts; each host's
// batch is checked and committed as a single agent's would be.
type SimEventsRequest struct {
	Batches []EventsRequest `json:"batches"`
}

// SimEventsResponse names the hosts whose batch was refused or failed,
// with the reason; the others were committed.
type SimEventsResponse struct {
	Failed map[string]string `json:"failed,omitempty"`
}

// SimHeartbeat sends the heartbeats of many simulated hosts.
func (c *Client) SimHeartbeat(ctx context.Context, req *SimHeartbeatRequest) (*SimHeartbeatResponse, error) {
	var out SimHeartbeatResponse
	err := c.Do(ctx, http.MethodPost, "/agent/sim/heartbeat", nil, req, &out)
	return &out, err
}

// SimWork long-polls for the work of many simulated hosts.
func (c *Client) SimWork(ctx context.Context, hosts map[string]uint64, wait time.Duration) (*SimWorkResponse, error) {
	var out SimWorkResponse
	err := c.Do(ctx, http.MethodPost, "/agent/sim/work", nil, &SimWorkRequest{Hosts: hosts, Wait: wait.String()}, &out)
	return &out, err
}

// SimEvents reports the job events of many simulated hosts.
func (c *Client) SimEvents(ctx context.Context, req *SimEventsRequest) (*SimEventsResponse, error) {
	var out SimEventsResponse
	err := c.Do(ctx, http.MethodPost, "/agent/sim/events", nil, req, &out)
	return &out, err
}
