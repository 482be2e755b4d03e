//go:build e2e

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOperatorRaftAndSnapshot: managers list, remove and add Raft peers
// and save and restore the state; anyone else gets Unauthorized Request.
func TestOperatorRaftAndSnapshot(t *testing.T) {
	c := newHACluster(t, 3, 1, 1)
	lead := c.leader(10 * time.Second)

	for _, args := range [][]string{
		{"operator", "raft", "list-peers"},
		{"operator", "raft", "remove-peer", "--id", "server1"},
		{"operator", "raft", "add-peer", "--id", "x", "--address", "127.0.0.1:1"},
		{"operator", "snapshot", "save", filepath.Join(c.work, "nobody.snap")},
	} {
		r := c.runAs(nobody, "", "strata", args...)
		if r.code != 159 || !strings.Contains(r.stderr, "Unauthorized Request") {
			t.Fatalf("nobody: strata %v: exit %d %q, want 159 Unauthorized Request", args, r.code, r.stderr)
		}
	}

	peers := func() map[string]string {
		out := c.must("strata", "operator", "raft", "list-peers")
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Fields(l)
			m[f[0]] = f[1] + " " + f[2]
		}
		return m
	}
	p := peers()
	if len(p) != 3 || !strings.HasSuffix(p[lead.Name], "leader") {
		t.Fatalf("list-peers: %v, want 3 with %s leading", p, lead.Name)
	}
	var victim string
	for id := range p {
		if id != lead.Name {
			victim = id
			break
		}
	}
	addr := strings.Fields(p[victim])[0]
	c.must("strata", "operator", "raft", "remove-peer", "--id", victim)
	if p := peers(); len(p) != 2 || p[victim] != "" {
		t.Fatalf("after remove-peer %s: %v", victim, p)
	}
	c.must("strata", "operator", "raft", "add-peer", "--id", victim, "--address", addr)
	waitFor(t, 10*time.Second, victim+" back as a peer", func() bool { return len(peers()) == 3 })

	// Backup and restore: a job submitted after the save is gone after the
	// restore, on every server.
	before := c.submit("#!/bin/sh\nexit 0\n")
	snap := filepath.Join(c.work, "state.snap")
	c.must("strata", "operator", "snapshot", "save", snap)
	after := c.submit("#!/bin/sh\nexit 0\n")
	c.must("strata", "operator", "snapshot", "restore", snap)
	for _, s := range c.status() {
		if s.Role != "server" {
			continue
		}
		one := *c
		one.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+sockOf(s))
		waitFor(t, 10*time.Second, s.Name+" to show the restored state", func() bool {
			r := one.run("qstat", "-x", after)
			return r.code == 153 && one.run("qstat", "-x", before).code == 0
		})
	}
}
