//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestSoftWalltime: a job past its soft walltime keeps running (walltime
// is the hard limit), its estimated.soft_walltime grows by 100% each time
// it is passed, and the top job behind it sees its estimated start move.
// Only managers may ask for a soft walltime, and never above walltime.
func TestSoftWalltime(t *testing.T) {
	c := newCluster(t, 1, 1, "strict_ordering = true\nbackfill_depth = 1\n")
	c.must("qmgr", "-c", "set server scheduler_iteration = 1")

	// The PBS rules at submission, as a user would meet them.
	r := c.runAs(nobody, "", "qsub", "-l", "soft_walltime=00:00:10", "--", "/bin/true")
	if r.code == 0 || !strings.Contains(r.stderr, "Cannot set attribute, read only or insufficient permission") {
		t.Errorf("a user set soft_walltime: exit %d, stderr %q", r.code, r.stderr)
	}
	r = c.run("qsub", "-l", "walltime=10", "-l", "soft_walltime=20", "--", "/bin/true")
	if r.code == 0 || !strings.Contains(r.stderr, "Illegal attribute or resource value") {
		t.Errorf("soft_walltime above walltime accepted: exit %d, stderr %q", r.code, r.stderr)
	}

	long := c.submit("sleep 120\n", "-N", "long", "-l", "select=1:ncpus=1", "-l", "walltime=00:02:00", "-l", "soft_walltime=3")
	c.waitState(long, 30*time.Second, "R")
	// The owner (root here) is a manager; a user may not alter it either.
	r = c.runAs(nobody, "", "qalter", "-l", "soft_walltime=50", long)
	if r.code == 0 {
		t.Errorf("a user altered soft_walltime: %q", r.stderr)
	}
	top := c.submit("true\n", "-N", "top", "-l", "select=1:ncpus=1", "-l", "walltime=00:10:00")
	startOf := func() string {
		est, _ := c.job(top)["estimated"].(map[string]any)
		return str(est["start_time"])
	}
	waitFor(t, 30*time.Second, "an estimate for the top job", func() bool { return startOf() != "" })
	first := startOf()

	// Past 3 s the soft walltime is extended to 6, then 9, ... and the
	// top job's estimate follows; the job is never killed for it.
	waitFor(t, 30*time.Second, "the soft walltime extended twice", func() bool {
		est, _ := c.job(long)["estimated"].(map[string]any)
		s := str(est["soft_walltime"])
		return s != "" && s != "00:00:06"
	})
	j := c.job(long)
	if j["job_state"] != "R" {
		t.Fatalf("the job past its soft walltime is %v (%v), want R", j["job_state"], j["comment"])
	}
	waitFor(t, 30*time.Second, "the top job's estimate to move", func() bool { return startOf() != first })
	full := c.must("qstat", "-f", long)
	for _, want := range []string{"Resource_List.soft_walltime = 00:00:03", "estimated.soft_walltime = "} {
		if !strings.Contains(full, want) {
			t.Errorf("qstat -f lacks %q:\n%s", want, full)
		}
	}
	// A manager may change it on the running job (the estimate starts
	// again), but never above walltime.
	r = c.run("qalter", "-l", "soft_walltime=00:05:00", long)
	if r.code == 0 || !strings.Contains(r.stderr, "Illegal attribute or resource value") {
		t.Errorf("soft_walltime above walltime altered: exit %d, stderr %q", r.code, r.stderr)
	}
	c.must("qalter", "-l", "soft_walltime=00:01:30", long)
	if full := c.must("qstat", "-f", long); !strings.Contains(full, "Resource_List.soft_walltime = 00:01:30") || strings.Contains(full, "estimated.soft_walltime") {
		t.Errorf("after qalter, qstat -f shows:\n%s", full)
	}
	c.must("qdel", long, top)
}
