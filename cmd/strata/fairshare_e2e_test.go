//go:build e2e

package main

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pbsfsUsage reads an entity's usage from `pbsfs -g`.
func pbsfsUsage(t *testing.T, c *cluster, entity string) float64 {
	t.Helper()
	r := c.run("pbsfs", "-g", entity)
	if r.code != 0 {
		return -1
	}
	m := regexp.MustCompile(`(?m)^usage: (\S+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("pbsfs -g %s: no usage line:\n%s", entity, r.stdout)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestFairshareOrderPbsfsAndSettings: the settings round-trip through
// qmgr print sched; pbsfs sets usage for a manager and refuses another
// user (the attack, performed as nobody); a job of the entity that used
// less runs first although submitted later, and the one kept behind says
// so in qstat -f and tracejob; a finished job's usage is charged.
func TestFairshareOrderPbsfsAndSettings(t *testing.T) {
	c := startCluster(t, 1, 1)
	c.must("qmgr", "-c", "set server query_other_jobs = true")
	c.must("qmgr", "-c", `set sched resource_group = "grpA 10 root 50, daemon 11 grpA 1, grpB 20 root 50, nobody 21 grpB 1"`)
	c.must("qmgr", "-c", "set sched fair_share = true")
	c.must("qmgr", "-c", "set sched fairshare_usage_res = ncpus")
	c.must("qmgr", "-c", "set sched fairshare_decay_time = 86400")
	c.must("qmgr", "-c", "set sched fairshare_decay_factor = 0.7")
	c.must("qmgr", "-c", "set sched unknown_shares = 20")

	// p s round-trips: what it prints, fed back, prints the same.
	ps := c.must("qmgr", "-c", "p s")
	for _, want := range []string{"fair_share = True", "fairshare_usage_res = ncpus", "fairshare_decay_factor = 0.7",
		"unknown_shares = 20", "nobody 21 grpB 1"} {
		if !strings.Contains(ps, want) {
			t.Fatalf("qmgr p s lacks %q:\n%s", want, ps)
		}
	}
	c.must("qmgr", "-c", "unset sched resource_group")
	c.must("qmgr", "-c", "unset sched fairshare_decay_factor")
	var sched []string
	for _, l := range strings.Split(ps, "\n") {
		if strings.Contains(l, "set sched") {
			sched = append(sched, l)
		}
	}
	if r := c.runWithInput(strings.Join(sched, "\n")+"\n", "qmgr"); r.code != 0 {
		t.Fatalf("qmgr < p s output: exit %d %s", r.code, r.stderr)
	}
	if again := c.must("qmgr", "-c", "p s"); again != ps {
		t.Fatalf("p s after replaying it differs:\n%s\nwant\n%s", again, ps)
	}

	// A manager sets usage; nobody may read but not change it.
	c.must("pbsfs", "-s", "nobody", "5000")
	if u := pbsfsUsage(t, c, "nobody"); u != 5000 {
		t.Fatalf("usage after pbsfs -s: %v", u)
	}
	for _, args := range [][]string{{"-s", "nobody", "0"}, {"-d"}, {"-e"}, {"--reset"}} {
		r := c.runAs(nobody, "", "pbsfs", args...)
		if r.code != 159 || !strings.Contains(r.stderr, "pbsfs: Unauthorized Request") {
			t.Fatalf("pbsfs %v as nobody: exit %d stderr %q, want 159 Unauthorized Request", args, r.code, r.stderr)
		}
	}
	if r := c.runAs(nobody, "", "pbsfs"); r.code != 0 || !strings.Contains(r.stdout, "nobody") {
		t.Fatalf("pbsfs as nobody (read): exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if u := pbsfsUsage(t, c, "nobody"); u != 5000 {
		t.Fatalf("usage changed by refused requests: %v", u)
	}

	// One cpu, busy; nobody's job is submitted before root's, but root
	// (unknown group, no usage) is more deserving.
	busy := c.submit("#!/bin/sh\nsleep 3\n", "-l", "select=1:ncpus=1")
	c.waitState(busy, 30*time.Second, "R")
	nob := c.runAs(nobody, "", "qsub", "-l", "select=1:ncpus=1", "--", "/bin/sleep", "1")
	if nob.code != 0 {
		t.Fatalf("qsub as nobody: %d %s", nob.code, nob.stderr)
	}
	behind := strings.TrimSpace(nob.stdout)
	first := c.submit("#!/bin/sh\nsleep 1\n", "-l", "select=1:ncpus=1")
	out := c.must("qstat", "-f", behind)
	if !strings.Contains(out, "fairshare_position = fairshare rank") || !strings.Contains(out, "nobody: usage 5000") {
		t.Fatalf("qstat -f of the job behind shows no fairshare position:\n%s", out)
	}
	if tr := c.must("tracejob", behind); !strings.Contains(tr, "behind more deserving fairshare entities") {
		t.Fatalf("tracejob shows no fairshare position:\n%s", tr)
	}
	c.waitState(first, 60*time.Second, "R", "F")
	if st := str(c.job(behind)["job_state"]); st != "Q" {
		t.Fatalf("nobody's job is %s while root's (submitted later, less usage) started", st)
	}
	c.waitState(behind, 60*time.Second, "R", "F")
	// The busy job (1 cpu x ~3 s) and root's second were charged to root.
	waitFor(t, 30*time.Second, "root's usage charged", func() bool { return pbsfsUsage(t, c, "root") >= 3 })
	if r := c.run("pbsfs", "-c", "root", "nobody"); strings.TrimSpace(r.stdout) != "root" {
		t.Fatalf("pbsfs -c root nobody: %q %s", r.stdout, r.stderr)
	}
}

// TestFairshareDecayAcrossLeaderChange: usage decays on the replicated
// schedule (fairshare_decay_time 3 s, factor 0.5), survives the leader's
// SIGKILL, and the new leader continues decaying from the replicated
// clock: every observed value is the set usage halved a whole number of
// times, and it never goes back up.
func TestFairshareDecayAcrossLeaderChange(t *testing.T) {
	c := newHACluster(t, 3, 1, 1)
	c.must("qmgr", "-c", "set sched fairshare_decay_time = 3")
	c.must("qmgr", "-c", "set sched fairshare_decay_factor = 0.5")
	const start = 1 << 30
	// Until every server has announced its command level the leader
	// holds the new command type back (raftstore/levels.go).
	waitFor(t, 30*time.Second, "pbsfs -s to be accepted", func() bool {
		return c.run("pbsfs", "-s", "alice", strconv.Itoa(start)).code == 0
	})
	halvings := func(u float64) int {
		k := math.Log2(start / u)
		if math.Abs(k-math.Round(k)) > 1e-9 {
			t.Fatalf("usage %v is not %d halved a whole number of times", u, start)
		}
		return int(math.Round(k))
	}
	var before float64
	waitFor(t, 30*time.Second, "the first decay", func() bool {
		before = pbsfsUsage(t, c, "alice")
		return before > 0 && before < start
	})
	k0 := halvings(before)
	lead := c.leader(10 * time.Second)
	c.kill9(lead.Name)
	c.leader(30 * time.Second)
	var after float64
	waitFor(t, 30*time.Second, "usage readable after the leader change", func() bool {
		after = pbsfsUsage(t, c, "alice")
		return after > 0
	})
	if after > before {
		t.Fatalf("usage went back up after the leader change: %v then %v", before, after)
	}
	k1 := halvings(after)
	waitFor(t, 30*time.Second, "the new leader to decay", func() bool {
		u := pbsfsUsage(t, c, "alice")
		return u > 0 && halvings(u) > k1
	})
	if k1 < k0 {
		t.Fatalf("decays went backwards: %d then %d", k0, k1)
	}
}
