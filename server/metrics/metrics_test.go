package metrics_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/strata-hpc/strata/internal/metricstest"

	smodel "github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/servertest"
)

// scrape fetches /metrics over HTTP and parses it with Prometheus's own
// text parser.
func scrape(t *testing.T, addr string) (map[string]*dto.MetricFamily, string) {
	return metricstest.Scrape(t, "http://"+addr+"/metrics")
}

// value is the sample of family name whose labels include want; -1 when
// absent.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	return metricstest.Value(fams, name, want)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func submit(t *testing.T, ctx context.Context, c *api.Client, name string) string {
	t.Helper()
	var tok [12]byte
	rand.Read(tok[:])
	id, err := c.Submit(ctx, &api.SubmitRequest{
		Token: hex.EncodeToString(tok[:]),
		Name:  name, Script: "#!/bin/sh\ntrue\n", Workdir: "/tmp", SubmitHost: "localhost",
		Env:       []smodel.EnvVar{{Name: "PBS_O_WORKDIR", Value: "/tmp"}, {Name: "PBS_O_HOME", Value: "/root"}},
		Resources: map[string]string{"select": "1:ncpus=1"},
	}, 0)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return id
}

// TestScrapeAfterJobs: a real server schedules two jobs on a registered
// host, the host reports one success and one failure, and a scrape of
// metrics_addr shows what an admin expects: submissions, starts, ends by
// exit class, jobs by queue and state, the vnode's state, cycles, API
// requests by route and Raft applies. The endpoint names no job or user.
func TestScrapeAfterJobs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the server's Unix socket identifies callers; root may submit and manage")
	}
	addr := freeAddr(t)
	s := servertest.Start(t, func(c *server.Config) { c.MetricsAddr = addr })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	agent := s.Agent(t, "n1")
	if _, err := agent.Register(ctx, &api.RegisterRequest{Host: "n1", BootID: "boot1", Version: api.PBSVersion, Pcpus: 2,
		Vnodes: []api.VnodeSpec{{Name: "n1", Resources: map[string]string{"ncpus": "2", "mem": "2gb"}}}}); err != nil {
		t.Fatal(err)
	}
	ids := []string{submit(t, ctx, s.Root, "secretname1"), submit(t, ctx, s.Root, "secretname2")}
	queued, _ := scrape(t, addr)
	if v := value(queued, "strata_jobs", map[string]string{"queue": "workq", "state": "Q"}); v != 2 {
		t.Fatalf("strata_jobs{queue=workq,state=Q} = %v before scheduling, want 2", v)
	}
	if err := s.Root.Manage(ctx, &smodel.ManagerRequest{Verb: "set", Object: "server",
		Attrs: []smodel.ManagerAttr{{Name: "scheduling", Op: "=", Value: "true"}}}); err != nil {
		t.Fatal(err)
	}
	// The scheduler sends both jobs to n1; the agent's work list shows them.
	var work *api.WorkResponse
	var index uint64
	for deadline := time.Now().Add(15 * time.Second); ; {
		w, err := agent.Work(ctx, "n1", index, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		work, index = w, w.Index
		if len(work.Jobs) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("work list = %+v, want both jobs", work)
		}
	}
	for i, j := range work.Jobs {
		exit := 0
		if j.ID == ids[1] {
			exit = 3
		}
		if err := agent.Events(ctx, &api.EventsRequest{Host: "n1", Events: []api.JobEvent{
			{JobID: j.ID, Kind: api.EventStarted, Run: j.RunCount, SessionID: 4000 + i},
			{JobID: j.ID, Kind: api.EventEnded, Run: j.RunCount, Exit: exit, Used: map[string]string{"walltime": "00:00:01"}},
		}}); err != nil {
			t.Fatalf("events: %v", err)
		}
	}
	fams, body := scrape(t, addr)
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"strata_server_leader", nil, 1},
		{"strata_jobs_submitted_total", nil, 2},
		{"strata_jobs_started_total", nil, 2},
		{"strata_jobs_ended_total", map[string]string{"exit_class": "success"}, 1},
		{"strata_jobs_ended_total", map[string]string{"exit_class": "failure"}, 1},
		{"strata_jobs_ended_total", map[string]string{"exit_class": "signal"}, 0},
		{"strata_jobs", map[string]string{"queue": "workq", "state": "Q"}, 0},
		{"strata_vnodes", map[string]string{"state": "free"}, 1},
		{"strata_vnodes_aoe", map[string]string{"aoe": "none"}, 1},
		{"strata_hosts", nil, 1},
		{"strata_api_requests_total", map[string]string{"route": "POST /v1/jobs", "code": "200"}, 2},
	}
	for _, c := range checks {
		if got := value(fams, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	atLeast := []struct {
		name string
		min  float64
	}{
		{"strata_scheduler_cycles_total", 1},
		{"strata_scheduler_jobs_considered_total", 2},
		{"strata_scheduler_jobs_started_total", 2},
		{"strata_scheduler_cycle_duration_seconds", 1},
		{"strata_raft_apply_duration_seconds", 4},
		{"strata_api_request_duration_seconds", 1},
		{"strata_raft_term", 1},
	}
	for _, c := range atLeast {
		if got := value(fams, c.name, nil); got < c.min {
			t.Errorf("%s = %v, want at least %v", c.name, got, c.min)
		}
	}
	if v := value(fams, "strata_raft_index", map[string]string{"kind": "applied"}); v < 5 {
		t.Errorf("strata_raft_index{kind=applied} = %v", v)
	}
	// Counts only: no job name, owner or id reaches the endpoint.
	for _, secret := range []string{"secretname", ids[0], "root@"} {
		if strings.Contains(body, secret) {
			t.Errorf("metrics expose %q", secret)
		}
	}
}

// TestRouteLabelsBounded performs the attack of a caller minting series:
// requests to made-up paths (without credentials over TCP, and over the
// socket) must not create a label per path, only "unmatched".
func TestRouteLabelsBounded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for the servertest socket")
	}
	addr := freeAddr(t)
	s := servertest.Start(t, func(c *server.Config) { c.MetricsAddr = addr })
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", s.Config.Socket)
	}}}
	for i := 0; i < 20; i++ {
		resp, err := client.Get("http://strata/v1/attack-" + strings.Repeat("x", i) + "/zz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	fams, body := scrape(t, addr)
	if strings.Contains(body, "attack-") {
		t.Fatalf("a made-up path became a label:\n%s", body)
	}
	if v := value(fams, "strata_api_requests_total", map[string]string{"route": "unmatched", "code": "404"}); v != 20 {
		t.Fatalf("unmatched requests = %v, want 20", v)
	}
	// The metrics listener serves /metrics only.
	resp, err := http.Get("http://" + addr + "/v1/jobs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /v1/jobs on metrics_addr = %d, want 404", resp.StatusCode)
	}
}
