//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestHAResvDegradationAndIdleResume: a degraded reservation's state and
// retry time, and a running reservation's idle clock, are replicated; a
// new leader reconfirms the first at its retry time and deletes the second
// after delete_idle_time, with nothing carried over but the Raft state.
func TestHAResvDegradationAndIdleResume(t *testing.T) {
	c := newHACluster(t, 3, 3, 2)
	c.leader(10 * time.Second)
	c.must("qmgr", "-c", "set server reserve_retry_time = 6")

	idle, _ := c.rsub("-R", at(time.Now().Add(3*time.Second)), "-D", "600", "-W", "delete_idle_time=10",
		"-l", "select=1:host=node3:ncpus=1")
	dg, _ := c.rsub("-R", at(time.Now().Add(time.Hour)), "-D", "600", "-l", "select=1:ncpus=2")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(dg, "reserve_state") == "RESV_CONFIRMED" })
	if n := c.resvNode(dg); n == "node3" {
		t.Fatalf("%s confirmed on node3, which %s holds", dg, idle)
	}
	c.must("pbsnodes", "-o", "node1", "node2")
	var retry string
	waitFor(t, 10*time.Second, "DG with a retry time", func() bool {
		retry = c.resvAttr(dg, "reserve_retry")
		return c.resvAttr(dg, "reserve_state") == "RESV_DEGRADED" && retry != ""
	})
	waitFor(t, 15*time.Second, idle+" running", func() bool { return c.resvAttr(idle, "reserve_state") == "RESV_RUNNING" })
	started := time.Now()

	lead := c.leader(10 * time.Second)
	c.kill9(lead.Name)
	newLead := c.leader(20 * time.Second)
	if newLead.Name == lead.Name {
		t.Fatalf("no new leader")
	}
	if st, r := c.resvAttr(dg, "reserve_state"), c.resvAttr(dg, "reserve_retry"); st != "RESV_DEGRADED" || r != retry {
		t.Fatalf("after the failover: state %s retry %q (was %q)", st, r, retry)
	}
	c.must("pbsnodes", "-r", "node2")
	waitFor(t, 30*time.Second, "reconfirmation by the new leader", func() bool {
		return c.resvAttr(dg, "reserve_state") == "RESV_CONFIRMED" && c.resvNode(dg) == "node2"
	})
	waitFor(t, 40*time.Second, "the idle reservation deleted", func() bool {
		r := c.run("pbs_rstat", idle)
		return r.code != 0 && strings.Contains(r.stderr, "Unknown Reservation Id")
	})
	if d := time.Since(started); d < 9*time.Second {
		t.Errorf("%s deleted %s after its start, before delete_idle_time (10 s)", idle, d)
	}
}
