//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestHAChaos is the short chaos test: three servers, two agents,
// concurrent qsub clients, while the leader is SIGKILLed (and restarted)
// twice and then SIGSTOPped until another server leads, then SIGCONTed.
// Afterwards every job id qsub printed exists exactly once, every job ran
// exactly once (the scripts' own records), and none is lost.
func TestHAChaos(t *testing.T) {
	c := newHACluster(t, 3, 2, 4)
	ranLog := filepath.Join(c.work, "ran.log")
	script := filepath.Join(c.work, "job.sh")
	os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho \"$PBS_JOBID\" >> %s\nsleep 0.3\n", ranLog)), 0o644)

	var mu sync.Mutex
	var printed []string
	failed := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := c.run("qsub", script)
				mu.Lock()
				if r.code == 0 {
					printed = append(printed, strings.TrimSpace(r.stdout))
				} else {
					failed++
					t.Logf("qsub failed (allowed; nothing printed): exit %d %s", r.code, strings.TrimSpace(r.stderr))
				}
				mu.Unlock()
			}
		}()
	}

	var gaps []time.Duration
	failover := func(how string, act func(p haProc), undo func(p haProc)) {
		lead := c.leader(20 * time.Second)
		start := time.Now()
		act(lead)
		waitFor(t, 20*time.Second, "another server to lead", func() bool {
			for _, p := range c.status() {
				if p.Role == "server" && p.Raft == "leader" && p.Name != lead.Name {
					return true
				}
			}
			return false
		})
		gaps = append(gaps, time.Since(start))
		t.Logf("%s %s: new leader after %s", how, lead.Name, time.Since(start).Round(time.Millisecond))
		undo(lead)
	}
	restart := func(p haProc) {
		c.restart()
		waitFor(t, 20*time.Second, p.Name+" back in the cluster", func() bool {
			for _, q := range c.status() {
				if q.Name == p.Name {
					return q.Raft == "follower"
				}
			}
			return false
		})
	}
	for i := 0; i < 2; i++ {
		failover("SIGKILL", func(p haProc) { c.kill9(p.Name) }, restart)
	}
	failover("SIGSTOP", func(p haProc) { syscall.Kill(p.Pid, syscall.SIGSTOP) }, func(p haProc) { syscall.Kill(p.Pid, syscall.SIGCONT) })
	// Keep submitting a little after the last fault.
	mu.Lock()
	n := len(printed)
	mu.Unlock()
	waitFor(t, 30*time.Second, "submissions after the last fault", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(printed) >= n+30
	})
	close(stop)
	wg.Wait()

	// Everything queued runs; every printed id exists exactly once.
	var doc struct {
		Jobs map[string]map[string]any `json:"Jobs"`
	}
	waitFor(t, 180*time.Second, "every job to finish", func() bool {
		r := c.run("qstat", "-x", "-f", "-F", "json")
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
			return false
		}
		for _, j := range doc.Jobs {
			if j["job_state"] != "F" {
				return false
			}
		}
		return true
	})
	seen := map[string]int{}
	for _, id := range printed {
		seen[id]++
	}
	lost := 0
	for id, n := range seen {
		if n != 1 {
			t.Errorf("qsub printed %s %d times", id, n)
		}
		if doc.Jobs[id] == nil {
			lost++
			t.Errorf("acknowledged job %s is lost", id)
		}
	}
	b, _ := os.ReadFile(ranLog)
	runs := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		runs[l]++
	}
	double := 0
	for id, j := range doc.Jobs {
		if runs[id] > 1 {
			double++
			t.Errorf("job %s ran %d times", id, runs[id])
		}
		if runs[id] == 0 {
			t.Errorf("job %s finished (Exit_status %v) without running", id, j["Exit_status"])
		}
	}
	longest := time.Duration(0)
	for _, g := range gaps {
		longest = max(longest, g)
	}
	t.Logf("chaos: failovers %d, longest time to a new leader %s, jobs submitted %d (qsub failures %d, jobs in the cluster %d), lost: %d, double runs: %d",
		len(gaps), longest.Round(time.Millisecond), len(printed), failed, len(doc.Jobs), lost, double)
}
