//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/strata-hpc/strata/internal/metricstest"
)

// scrapeMetrics fetches and parses a Prometheus endpoint.
func scrapeMetrics(t *testing.T, url string) (map[string]*dto.MetricFamily, string) {
	return metricstest.Scrape(t, url)
}

// sample is the value of the first sample of name whose labels include
// want (a histogram's count); -1 when there is none.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	return metricstest.Value(fams, name, want)
}

// TestMetrics: `strata cluster start` serves metrics on loopback and
// writes the server's endpoint into D/env; after real jobs ran, a scrape of
// the server shows the submissions, starts and ends by exit class, the
// running job in its queue, the vnodes' states, and a scrape of the agent
// running the job shows it and a recent heartbeat. No job name or owner
// appears in either.
func TestMetrics(t *testing.T) {
	c := startCluster(t, 2, 1)
	env, err := os.ReadFile(filepath.Join(c.dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export STRATA_METRICS="(http://127\.0\.0\.1:\d+/metrics)"`).FindStringSubmatch(string(env))
	if m == nil {
		t.Fatalf("D/env has no STRATA_METRICS on loopback:\n%s", env)
	}
	serverURL := m[1]
	agentURL := map[string]string{}
	for name, addr := range metricsAddrs(t, c) {
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Fatalf("process %s metrics address %q is not on loopback", name, addr)
		}
		agentURL[name] = "http://" + addr + "/metrics"
	}

	ok1 := c.submit("#!/bin/sh\n#PBS -N metricsecret\nexit 0\n")
	ok2 := c.submit("#!/bin/sh\n#PBS -N metricsecret\nexit 0\n")
	bad := c.submit("#!/bin/sh\n#PBS -N metricsecret\nexit 2\n")
	for _, id := range []string{ok1, ok2, bad} {
		c.waitState(id, 30*time.Second, "F")
	}
	long := c.submit("#!/bin/sh\n#PBS -N metricsecret\nsleep 300\n")
	j := c.waitState(long, 30*time.Second, "R")
	host := strings.SplitN(str(j["exec_host"]), "/", 2)[0]

	fams, body := scrapeMetrics(t, serverURL)
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"strata_server_leader", nil, 1},
		{"strata_jobs_submitted_total", nil, 4},
		{"strata_jobs_started_total", nil, 4},
		{"strata_jobs_ended_total", map[string]string{"exit_class": "success"}, 2},
		{"strata_jobs_ended_total", map[string]string{"exit_class": "failure"}, 1},
		{"strata_jobs", map[string]string{"queue": "workq", "state": "R"}, 1},
		{"strata_vnodes", map[string]string{"state": "free"}, 1},
		{"strata_hosts", nil, 2},
	}
	for _, ck := range checks {
		if got := sample(fams, ck.name, ck.labels); got != ck.want {
			t.Errorf("server %s%v = %v, want %v", ck.name, ck.labels, got, ck.want)
		}
	}
	if got := sample(fams, "strata_api_requests_total", map[string]string{"route": "POST /v1/jobs", "code": "200"}); got != 4 {
		t.Errorf("server strata_api_requests_total{POST /v1/jobs,200} = %v, want 4", got)
	}
	for _, name := range []string{"strata_scheduler_cycle_duration_seconds", "strata_raft_apply_duration_seconds"} {
		if got := sample(fams, name, nil); got < 1 {
			t.Errorf("server %s count = %v, want > 0", name, got)
		}
	}

	// The agent running the long job counts it, the other none; both
	// heard from the server within a few heartbeats (1s in the cluster).
	for name, want := range map[string]float64{"node1": 0, "node2": 0, host: 1} {
		var afams map[string]*dto.MetricFamily
		var abody string
		waitFor(t, 10*time.Second, name+"'s running jobs", func() bool {
			afams, abody = scrapeMetrics(t, agentURL[name])
			return sample(afams, "strata_agent_jobs_running", nil) == want
		})
		if age := sample(afams, "strata_agent_heartbeat_age_seconds", nil); age < 0 || age > 5 {
			t.Errorf("%s heartbeat age = %v, want within 5s", name, age)
		}
		waitFor(t, 10*time.Second, name+"'s first heartbeat", func() bool {
			afams, abody = scrapeMetrics(t, agentURL[name])
			return sample(afams, "strata_agent_heartbeats_total", map[string]string{"outcome": "ok"}) >= 1
		})
		body += abody
	}
	for _, secret := range []string{"metricsecret", long, "root"} {
		if strings.Contains(body, secret) {
			t.Errorf("metrics expose %q", secret)
		}
	}
}
