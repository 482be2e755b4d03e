//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestPlacementSets: vnodes carry a custom switch resource; with
// node_group_key=switch a two-host job is placed inside one switch (the
// smallest that fits) instead of spanning two as node order would. With
// do_not_span_psets a job no switch can hold says so, and qmgr's print
// server replays the settings into a fresh cluster.
func TestPlacementSets(t *testing.T) {
	c := startCluster(t, 3, 1)
	c.must("qmgr", "-c", "create resource switch type=string,flag=h")
	c.must("qmgr", "-c", "set node node1 resources_available.switch=a")
	c.must("qmgr", "-c", "set node node2 resources_available.switch=b")
	c.must("qmgr", "-c", "set node node3 resources_available.switch=b")

	// Without placement sets, node order spans the switches.
	spread := c.submit("sleep 30\n", "-l", "select=2:ncpus=1", "-l", "place=scatter")
	if got := execHosts(c.waitState(spread, 30*time.Second, "R")); got != "node1+node2" {
		t.Fatalf("without placement sets: exec_vnode %q, want node1+node2", got)
	}
	c.must("qdel", spread)
	waitFor(t, 30*time.Second, "the vnodes to be free", func() bool {
		return !strings.Contains(c.must("pbsnodes", "-a"), "jobs = ")
	})

	c.must("qmgr", "-c", "set server node_group_enable=true, node_group_key=switch")
	inOne := c.submit("sleep 30\n", "-l", "select=2:ncpus=1", "-l", "place=scatter")
	if got := execHosts(c.waitState(inOne, 30*time.Second, "R")); got != "node2+node3" {
		t.Errorf("with node_group_key=switch: exec_vnode %q, want node2+node3 (switch b)", got)
	}
	c.must("qdel", inOne)

	c.must("qmgr", "-c", "set sched do_not_span_psets=true")
	tooBig := c.submit("true\n", "-l", "select=3:ncpus=1", "-l", "place=scatter")
	waitFor(t, 30*time.Second, "the can't-span comment", func() bool {
		return str(c.job(tooBig)["comment"]) == "Can Never Run: can't fit in the largest placement set, and can't span psets"
	})
	// Spanning allowed again: the job runs across both switches.
	c.must("qmgr", "-c", "set sched do_not_span_psets=false")
	c.waitState(tooBig, 30*time.Second, "R", "F")

	c.must("qmgr", "-c", "set sched do_not_span_psets=true, only_explicit_psets=true")
	c.must("qmgr", "-c", "set queue workq node_group_key=switch")
	cfg := c.must("qmgr", "-c", "print server")
	for _, want := range []string{"set server node_group_enable = True\n", "set server node_group_key = switch\n",
		"set queue workq node_group_key = switch\n", "set sched do_not_span_psets = True\n", "set sched only_explicit_psets = True\n"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("print server lacks %q:\n%s", want, cfg)
		}
	}
	replayPrintServer(t, cfg)
}

// replayPrintServer feeds print server output into a fresh cluster and
// expects the same configuration back.
func replayPrintServer(t *testing.T, cfg string) {
	t.Helper()
	// The fresh cluster's seeded queue goes first, so it is empty.
	b := startCluster(t, 1, 1)
	b.must("qmgr", "-c", "delete queue workq")
	if r := b.runWithInput(cfg, "qmgr"); r.code != 0 {
		t.Fatalf("replay: %+v", r)
	}
	if got := b.must("qmgr", "-c", "print server"); got != cfg {
		t.Errorf("round trip differs:\n--- first ---\n%s\n--- second ---\n%s", cfg, got)
	}
}

// execHosts is a job's exec_vnode as "node1+node2", amounts left out.
func execHosts(j map[string]any) string {
	var out []string
	for _, part := range strings.Split(str(j["exec_vnode"]), "+") {
		name, _, _ := strings.Cut(strings.Trim(part, "()"), ":")
		out = append(out, name)
	}
	return strings.Join(out, "+")
}
