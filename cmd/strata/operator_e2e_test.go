//go:build e2e

package main

import (
	"fmt"
	"os"
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
			if l == "" {
				break // the command level line follows
			}
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
	waitRestored(t, c, after, before)
}

// waitRestored waits until every server shows the restored state: job
// gone (unknown, 153) and job kept.
func waitRestored(t *testing.T, c *cluster, gone, kept string) {
	t.Helper()
	for _, s := range c.status() {
		if s.Role != "server" {
			continue
		}
		one := c.viaSocket(sockOf(s))
		waitFor(t, 10*time.Second, s.Name+" to show the restored state", func() bool {
			return one.run("qstat", "-x", gone).code == 153 && one.run("qstat", "-x", kept).code == 0
		})
	}
}

// viaSocket is c with commands sent to one server's socket only.
func (c *cluster) viaSocket(sock string) *cluster {
	one := *c
	one.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+sock)
	return &one
}

// TestOperatorSnapshotLargerThanBodyLimit: a snapshot larger than
// limits.max_body_bytes is restored (the restore streams, through a
// follower to the leader); a file over max_snapshot_bytes is refused, and
// so is anyone but a manager, before the body is read.
func TestOperatorSnapshotLargerThanBodyLimit(t *testing.T) {
	const maxBody, maxSnap = 64 << 10, 1 << 20
	c := newHACluster(t, 3, 1, 1)
	c.editServerConfigs(func(conf string) string {
		return conf + fmt.Sprintf("\n[limits]\nmax_body_bytes = %d\nmax_snapshot_bytes = %d\n", maxBody, maxSnap)
	})
	c.leader(20 * time.Second)
	// Held jobs with 16 KiB scripts: the state outgrows one request body.
	script := "#!/bin/sh\n# " + strings.Repeat("x", 16<<10) + "\nexit 0\n"
	var before []string
	for i := 0; i < 8; i++ {
		before = append(before, c.submit(script, "-h"))
	}
	snap := filepath.Join(c.work, "state.snap")
	c.must("strata", "operator", "snapshot", "save", snap)
	fi, err := os.Stat(snap)
	if err != nil || fi.Size() <= maxBody {
		t.Fatalf("snapshot of %v bytes (%v), want more than max_body_bytes %d", fi.Size(), err, maxBody)
	}
	after := c.submit(script, "-h")

	// Not a manager: refused, whatever the size.
	os.Chmod(snap, 0o644)
	if r := c.runAs(nobody, "", "strata", "operator", "snapshot", "restore", snap); r.code != 159 || !strings.Contains(r.stderr, "Unauthorized Request") {
		t.Fatalf("nobody restores: exit %d %q, want 159 Unauthorized Request", r.code, r.stderr)
	}
	// Over max_snapshot_bytes: refused, the state is untouched.
	huge := filepath.Join(c.work, "huge.snap")
	hdr, _ := os.ReadFile(snap)
	line := hdr[:strings.IndexByte(string(hdr), '\n')+1]
	os.WriteFile(huge, append(append([]byte(nil), line...), make([]byte, 2*maxSnap)...), 0o600)
	if r := c.run("strata", "operator", "snapshot", "restore", huge); r.code == 0 || !strings.Contains(r.stderr, "max_snapshot_bytes") {
		t.Fatalf("restore of %d bytes: exit %d %q, want refused over max_snapshot_bytes", 2*maxSnap, r.code, r.stderr)
	}
	if c.run("qstat", after).code != 0 {
		t.Fatalf("a refused restore changed the state: %s is gone", after)
	}

	// Through every server's socket in turn (followers forward the
	// stream to the leader): the later job is gone everywhere.
	for _, s := range c.status() {
		if s.Role == "server" {
			c.viaSocket(sockOf(s)).must("strata", "operator", "snapshot", "restore", snap)
		}
	}
	waitRestored(t, c, after, before[len(before)-1])
	t.Logf("restored a %d-byte snapshot with max_body_bytes %d through each server", fi.Size(), maxBody)
}
