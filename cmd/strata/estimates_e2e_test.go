//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestTopJobEstimates: with strict ordering, a job that cannot run becomes a
// top job with an estimated start, shown by qstat -f and qstat -T; a later
// small job may not jump ahead of it.
func TestTopJobEstimates(t *testing.T) {
	c := newCluster(t, 1, 2, "strict_ordering = true\nbackfill_depth = 1\n")
	long := c.submit("sleep 60\n", "-N", "long", "-l", "select=1:ncpus=2", "-l", "walltime=01:00:00")
	c.waitState(long, 30*time.Second, "R")
	top := c.submit("true\n", "-N", "top", "-l", "select=1:ncpus=2", "-l", "walltime=00:10:00")
	waitFor(t, 30*time.Second, "an estimate for the top job", func() bool {
		est, _ := c.job(top)["estimated"].(map[string]any)
		return str(est["start_time"]) != ""
	})
	full := c.must("qstat", "-f", top)
	for _, want := range []string{"estimated.start_time = ", "estimated.exec_vnode = (node1:ncpus=2)", "    topjob = True\n"} {
		if !strings.Contains(full, want) {
			t.Errorf("qstat -f lacks %q:\n%s", want, full)
		}
	}
	if js := c.must("qstat", "-f", "-F", "json", top); !strings.Contains(js, "\"topjob\":\t\"True\"") {
		t.Errorf("qstat -f -F json lacks topjob:\n%s", js)
	}
	// A small job that would end after the top job's start must wait.
	small := c.submit("true\n", "-N", "small", "-l", "select=1:ncpus=1", "-l", "walltime=02:00:00")
	waitFor(t, 30*time.Second, "a comment on the small job", func() bool {
		return strings.Contains(str(c.job(small)["comment"]), "Not Running")
	})
	if j := c.job(small); j["job_state"] != "Q" {
		t.Errorf("small job jumped the top job: %v (%v)", j["job_state"], j["comment"])
	}
	table := c.must("qstat", "-T")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	var topLine string
	for _, l := range lines {
		if strings.HasPrefix(l, top) {
			topLine = l
		}
	}
	if topLine == "" || strings.Contains(topLine, " -- ") && !strings.Contains(topLine, ":") {
		t.Errorf("qstat -T shows no estimate for %s:\n%s", top, table)
	}
	c.must("qdel", long, top, small)
}
