//go:build e2e

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHABench measures the figures of docs/ha.md (make bench; skipped
// unless STRATA_HA_BENCH is set): time from SIGKILL of the leader to the
// first successful qsub and to the first job started under the new leader,
// and submission throughput of 3 servers against 1.
func TestHABench(t *testing.T) {
	if os.Getenv("STRATA_HA_BENCH") == "" {
		t.Skip("set STRATA_HA_BENCH=1 (make bench)")
	}
	rounds := 7
	var toQsub, toStart []time.Duration
	c := newHACluster(t, 3, 2, 4)
	// Measured with the timers a deployment gets by default, not the
	// local cluster's fast_raft ones.
	c.editServerConfigs(defaultTimers)
	script := filepath.Join(c.work, "job.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o644)
	for i := 0; i < rounds; i++ {
		lead := c.leader(20 * time.Second)
		syscall.Kill(lead.Pid, syscall.SIGKILL)
		killed := time.Now()
		var id string
		waitFor(t, 30*time.Second, "qsub after the kill", func() bool {
			r := c.run("qsub", script)
			id = strings.TrimSpace(r.stdout)
			return r.code == 0
		})
		toQsub = append(toQsub, time.Since(killed))
		waitFor(t, 30*time.Second, "the job to start", func() bool {
			s := str(c.job(id)["job_state"])
			return s == "R" || s == "E" || s == "F"
		})
		toStart = append(toStart, time.Since(killed))
		c.restart()
	}
	one := newHACluster1(t)
	t1 := throughput(t, one, script, "")
	var leader, follower string
	for _, p := range c.status() {
		switch {
		case p.Role == "server" && p.Raft == "leader":
			leader = sockOf(p)
		case p.Role == "server" && p.Raft == "follower" && follower == "":
			follower = sockOf(p)
		}
	}
	t3 := throughput(t, c, script, leader)
	t3f := throughput(t, c, script, follower)
	t.Logf("HA figures: SIGKILL of the leader -> first successful qsub: %s; -> first job started: %s (median of %d, default timers)",
		median(toQsub), median(toStart), rounds)
	t.Logf("HA figures: submission throughput, 4 concurrent qsub clients: 1 server %.0f jobs/s; 3 servers via the leader's socket %.0f jobs/s, via a follower's %.0f jobs/s", t1, t3, t3f)
	// make bench appends the figures to docs/performance.md.
	if out := os.Getenv("STRATA_HA_BENCH_OUT"); out != "" {
		f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fmt.Fprintf(f, `
## High availability (TestHABench, docs/ha.md)

Three servers with Strata's default Raft timers (raft_timeout 500ms), two
agents, real processes on loopback; median (min, max) of %d rounds.

| measurement | value |
|---|---|
| SIGKILL of the leader to the first successful qsub | %s |
| SIGKILL of the leader to the first job started by the new leader | %s |
| durable submissions/s, 4 concurrent qsub, 1 server | %.0f |
| the same, 3 servers, through the leader's socket | %.0f |
| the same, 3 servers, through a follower's socket | %.0f |
`, rounds, median(toQsub), median(toStart), t1, t3, t3f)
	}
}

// newHACluster1 is a one-server cluster for the throughput comparison.
func newHACluster1(t *testing.T) *cluster {
	c := newCluster(t, 1, 1, "")
	return c
}

// throughput runs 4 concurrent qsub loops of 25 jobs and returns jobs/s.
func throughput(t *testing.T, c *cluster, script, socket string) float64 {
	cc := *c
	if socket != "" {
		cc.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+socket)
	}
	const clients, each = 4, 25
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				// Held: no job runs, so the figure is submission alone.
				if r := cc.run("qsub", "-h", script); r.code != 0 {
					t.Errorf("qsub: %s", r.stderr)
				}
			}
		}()
	}
	wg.Wait()
	return float64(clients*each) / time.Since(start).Seconds()
}

func median(d []time.Duration) string {
	s := append([]time.Duration(nil), d...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return fmt.Sprintf("%s (min %s, max %s)", s[len(s)/2].Round(time.Millisecond), s[0].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond))
}
