//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestLookaheadProvisionE2E: qmgr accepts provision_policy =
// lookahead_provision and prints it; the live server then lets a job wait
// for the busy vnode already on its AOE (the other vnode would need a
// reimage whose learned or default cost exceeds the wait) and runs it
// there, unprovisioned, when the first job ends.
func TestLookaheadProvisionE2E(t *testing.T) {
	c := startCluster(t, 2, 1)
	if r := c.run("qmgr", "-c", "set sched provision_policy = sometimes"); r.code == 0 || !strings.Contains(r.stderr, "Illegal attribute or resource value") {
		t.Errorf("bogus policy: %+v", r)
	}
	c.must("qmgr", "-c", "set sched provision_policy = lookahead_provision")
	if out := c.must("qmgr", "-c", "p s"); !strings.Contains(out, "set sched provision_policy = lookahead_provision") {
		t.Errorf("p s:\n%s", out)
	}
	c.provHook("sleep 5\nprintf '%s\\n' \"$STRATA_HOOK_AOE\" > \"$STRATA_HOOK_AOE_FILE\"\nexit 1")
	c.provNode("node1", "app1,app2")
	c.provNode("node2", "app1,app2")
	first := c.submit("sleep 8\n", "-l", "select=1:ncpus=1:aoe=app1", "-l", "walltime=12")
	j := c.waitSub(first, "42", 20*time.Second) // provisioned, then running
	ev := str(j["exec_vnode"])
	node := strings.TrimPrefix(strings.SplitN(ev, ":", 2)[0], "(")
	// At most 12 s of walltime remain (the 5 s of provisioning are over),
	// less than a reimage's cost (4 x the learned ~5 s).
	second := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app1", "-l", "walltime=12")
	waitFor(t, 10*time.Second, "waiting comment", func() bool {
		return strings.Contains(str(c.job(second)["comment"]), "Waiting for vnodes on AOE app1")
	})
	c.waitState(second, 40*time.Second, "F")
	j = c.job(second)
	if got := str(j["exec_vnode"]); got != "("+node+":ncpus=1)" {
		t.Errorf("second job ran on %q, want %s unprovisioned (first on %s)", got, node, ev)
	}
}
