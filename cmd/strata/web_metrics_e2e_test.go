//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProvisionAndCgroupMetrics: after a real provisioning run the leader
// exports one duration and one wait observation for the operation, by AOE,
// mode and outcome, on the address the page shares (STRATA_WEB); the agent
// running a job exports its cgroup's usage (when jobs get cgroups here).
func TestProvisionAndCgroupMetrics(t *testing.T) {
	c := startProvCluster(t, 2, "")
	web := webBase(t, c)
	c.provHook("sleep 1\nprintf '%s\\n' \"$STRATA_HOOK_AOE\" > \"$STRATA_HOOK_AOE_FILE\"\nexit 0")
	c.provNode("node2", "rhel9")
	id := c.submit("sleep 600\n", "-l", "select=1:ncpus=1:aoe=rhel9")
	c.waitNode("node2", "current_aoe", "rhel9", 60*time.Second)
	c.waitState(id, 30*time.Second, "R")

	waitFor(t, 10*time.Second, "the provisioning histograms", func() bool {
		f, _ := scrapeMetrics(t, web+"/metrics")
		return sample(f, "strata_provision_duration_seconds", map[string]string{"aoe": "rhel9", "mode": "agent", "outcome": "success"}) == 1 &&
			sample(f, "strata_provision_wait_seconds", map[string]string{"aoe": "rhel9", "mode": "agent"}) == 1
	})
	f, body := scrapeMetrics(t, web+"/metrics")
	if h := f["strata_provision_duration_seconds"].GetMetric()[0].GetHistogram(); h.GetSampleSum() < 1 || h.GetSampleSum() > 60 {
		t.Errorf("provisioning took %v s by the histogram, want the hook's 1 s and a little", h.GetSampleSum())
	}
	if sample(f, "strata_raft_log_bytes", nil) <= 0 {
		t.Errorf("strata_raft_log_bytes missing or zero")
	}
	if strings.Contains(body, id) {
		t.Errorf("metrics name the job %s", id)
	}

	// The agent running the job: its cgroup's usage.
	url := "http://" + metricsAddrs(t, c)["node2"] + "/metrics"
	if af, _ := scrapeMetrics(t, url); sample(af, "strata_agent_cgroup_jobs", nil) < 0 {
		log, _ := os.ReadFile(filepath.Join(c.dir, "node2.log"))
		if strings.Contains(string(log), "contained by cgroup") {
			t.Fatalf("node2 contains jobs by cgroup but exports no strata_agent_cgroup_jobs")
		}
		t.Skip("jobs get no cgroups on this machine: no agent cgroup series to check")
	}
	waitFor(t, 10*time.Second, "node2's cgroup series", func() bool {
		af, _ := scrapeMetrics(t, url)
		return sample(af, "strata_agent_cgroup_jobs", nil) == 1 && sample(af, "strata_agent_cgroup_memory_bytes", nil) > 0 &&
			sample(af, "strata_agent_cgroup_cpu_seconds", nil) >= 0 && sample(af, "strata_agent_cgroup_oom_kills", nil) == 0
	})
}

// metricsAddrs maps each process of the cluster to its metrics address
// (D/cluster.json).
func metricsAddrs(t *testing.T, c *cluster) map[string]string {
	t.Helper()
	var layout struct {
		Procs []struct {
			Name    string `json:"name"`
			Metrics string `json:"metrics"`
		} `json:"processes"`
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "cluster.json"))
	if err != nil || json.Unmarshal(b, &layout) != nil {
		t.Fatalf("cluster.json: %v", err)
	}
	out := map[string]string{}
	for _, p := range layout.Procs {
		out[p.Name] = p.Metrics
	}
	return out
}
