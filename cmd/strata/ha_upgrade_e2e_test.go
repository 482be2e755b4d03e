//go:build e2e

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/raftstore"
)

// TestHARollingUpgrade runs one follower of a 3-server cluster on the
// previous release: the same source built with a lower command level
// (-ldflags -X raftstore.commandLevel=1), which knows no ServerInfo
// entries. It keeps applying the log (it refuses the entries it does not
// know, deterministically, and serves the jobs around them); the leader
// holds back ServerInfo while it is a voter (a server added meanwhile is
// not recorded); once the follower is replaced by the current release, the
// leader records the new server and every server learns its address.
func TestHARollingUpgrade(t *testing.T) {
	prev := filepath.Join(binDir, "strata-prev")
	build := exec.Command("go", "build", "-ldflags", "-X github.com/strata-hpc/strata/raftstore.commandLevel=1", "-o", prev, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the previous release: %v\n%s", err, out)
	}
	c := newHACluster(t, 3, 1, 2)
	lead := c.leader(20 * time.Second)
	via := func(name string) *cluster {
		one := *c
		one.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+filepath.Join(c.dir, name, "strata.sock"))
		return &one
	}
	var old, other string // two followers: one goes back a release
	for _, p := range c.status() {
		if p.Role == "server" && p.Name != lead.Name {
			if old == "" {
				old = p.Name
			} else {
				other = p.Name
			}
		}
	}
	viaLead, viaOther := via(lead.Name), via(other)
	cur := strconv.Itoa(raftstore.CommandLevel()) // this source's level (4: preemption)
	waitFor(t, 20*time.Second, "every server recorded at level "+cur, func() bool {
		peers := peerTable(viaOther)
		for _, f := range peers {
			if len(f) < 6 || f[4] == "?" || f[5] != cur {
				return false
			}
		}
		return len(peers) == 3
	})

	// The follower goes back to the previous release, on its own data.
	c.kill9(old)
	logf, err := os.OpenFile(filepath.Join(c.dir, old+".log"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(prev, "server", "--config", filepath.Join(c.dir, old, "server.toml"))
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	go srv.Wait() // reaped when killed below
	os.WriteFile(filepath.Join(c.dir, old+".pid"), []byte(fmt.Sprint(srv.Process.Pid)), 0o644)
	waitFor(t, 20*time.Second, "the leader to see "+old+" at command level 1", func() bool {
		return strings.Contains(viaLead.must("strata", "operator", "raft", "list-peers"), "Command level in use: 1 (newer commands held back: "+old+" supports 1)")
	})
	// It replayed the ServerInfo entries of its log and refused them.
	b, _ := os.ReadFile(filepath.Join(c.dir, old+".log"))
	if !strings.Contains(string(b), "ServerInfo needs command level 2, this server applies up to 1") {
		t.Fatalf("%s.log does not show the refused ServerInfo entries", old)
	}
	// It keeps applying: a job submitted through the leader runs and is
	// read through the old server (its read waits for its own FSM).
	id := c.submit("#!/bin/sh\nexit 0\n")
	c.waitState(id, 30*time.Second, "F")
	if r := via(old).run("qstat", "-x", id); r.code != 0 {
		t.Fatalf("the previous release does not serve %s: %s", id, r.stderr)
	}
	viaOld := via(old)
	id2 := viaOld.submit("#!/bin/sh\nexit 0\n") // forwarded by the old server
	c.waitState(id2, 30*time.Second, "F")

	// A qrls of many ids (batched requests) commits one entry per id while
	// the old server votes (ReleaseJobs is level 6): it applies them all.
	var held []string
	for i := 0; i < 16; i++ {
		held = append(held, c.submit("#!/bin/sh\nexit 0\n", "-h"))
	}
	viaLead.must("qrls", held...)
	for _, h := range held {
		c.waitState(h, 30*time.Second, "F")
	}
	if r := viaOld.run("qstat", append([]string{"-x"}, held...)...); r.code != 0 || strings.Count(r.stdout, " F ") != len(held) {
		t.Fatalf("the previous release after a batched qrls: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(c.dir, old+".log")); strings.Contains(string(b), "ReleaseJobs needs command level") {
		t.Fatal("the leader proposed ReleaseJobs while a voter is at level 1")
	}

	// Preemption (level 4) is held back too: the old server would apply
	// the express job's run without the preemption it needs. The express
	// job waits; the running job is left alone.
	viaLead.must("qmgr", "-c", "create queue express queue_type=execution,priority=200,enabled=true,started=true")
	long := c.submit("#!/bin/sh\nsleep 300\n", "-l", "select=1:ncpus=2")
	waitFor(t, 30*time.Second, "the long job to run", func() bool { return str(c.job(long)["substate"]) == "42" })
	// The express job runs long enough for its preemption to be seen: one
	// that ended at once resumed the long job between two polls.
	ex := c.submit("#!/bin/sh\nsleep 300\n", "-q", "express", "-l", "select=1:ncpus=2")
	waitFor(t, 20*time.Second, "the express job to be judged", func() bool {
		return strings.HasPrefix(str(c.job(ex)["comment"]), "Not Running")
	})
	if j := c.job(long); j["job_state"] != "R" {
		t.Fatalf("the long job was preempted (%v) while %s runs command level 1", j["job_state"], old)
	}

	// A server added now is not recorded: the leader holds ServerInfo back.
	_, raft4 := startJoiningServer(t, c, "server4", filepath.Join(binDir, "strata"))
	viaLead.must("strata", "operator", "raft", "add-peer", "--id", "server4", "--address", raft4)
	waitFor(t, 20*time.Second, "the leader to hold back server4's record", func() bool {
		b, _ := os.ReadFile(filepath.Join(c.dir, lead.Name+".log"))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "holding back ServerInfo for") && strings.Contains(l, "server4") && strings.Contains(l, old+" supports 1") {
				return true
			}
		}
		return false
	})
	if f := peerTable(viaOther)["server4"]; len(f) < 5 || f[4] != "?" {
		t.Fatalf("%s knows server4's API address while the record is held back: %v", other, f)
	}

	// The old server is replaced by the current release: the leader
	// records server4, and every server learns its address.
	c.kill9(old)
	c.restart()
	waitFor(t, 30*time.Second, "command level "+cur+" in use", func() bool {
		return strings.Contains(viaLead.must("strata", "operator", "raft", "list-peers"), "Command level in use: "+cur+"\n")
	})
	waitFor(t, 20*time.Second, "server4 recorded and known to "+other, func() bool {
		f := peerTable(viaOther)["server4"]
		return len(f) > 5 && f[4] != "?" && f[5] == cur
	})
	// Now every voter applies preemption: the express job preempts.
	waitFor(t, 30*time.Second, "the express job to preempt the long job", func() bool {
		return c.job(long)["job_state"] == "S" && c.job(ex)["job_state"] != "Q"
	})
	c.must("qdel", ex, long)
	t.Logf("rolling upgrade: %s ran command level 1 (applied %s and %s, refused ServerInfo), the leader held back server4's record, after the upgrade %s knows server4 at %s",
		old, id, id2, other, peerTable(viaOther)["server4"][4])
}
