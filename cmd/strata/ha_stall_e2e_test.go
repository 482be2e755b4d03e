//go:build e2e

package main

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHAStoppedServer: the first server of STRATA_SOCKET is SIGSTOPped. Its
// socket still accepts connections (the kernel's backlog), so without a
// bound every command would hang until SIGCONT; instead the client probes
// the silent server, gives up on it and moves on to the others.
func TestHAStoppedServer(t *testing.T) {
	c := newHACluster(t, 3, 1, 2)
	c.leader(20 * time.Second)
	var first haProc
	for _, p := range c.status() {
		if p.Name == "server1" {
			first = p
		}
	}
	if v, _ := envValue(c.env, "STRATA_SOCKET"); !strings.Contains(v, sockOf(first)+",") {
		t.Fatalf("server1's socket is not first in STRATA_SOCKET %q", v)
	}
	if err := syscall.Kill(first.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(first.Pid, syscall.SIGCONT)

	start := time.Now()
	id := c.submit("#!/bin/sh\nexit 0\n") // fails the test if qsub fails
	took := time.Since(start)
	start = time.Now()
	c.waitState(id, 60*time.Second, "F")
	r := c.run("qstat", "-B")
	if r.code != 0 {
		t.Fatalf("qstat -B with server1 stopped: exit %d %s", r.code, r.stderr)
	}
	t.Logf("server1 SIGSTOPped: qsub answered after %s; the job finished, qstat -B answered: %s",
		took.Round(time.Millisecond), strings.Join(strings.Fields(r.stdout), " "))
	if took > 15*time.Second {
		t.Fatalf("qsub took %s with one server stopped", took)
	}
	syscall.Kill(first.Pid, syscall.SIGCONT)
	c.leader(20 * time.Second)
}
