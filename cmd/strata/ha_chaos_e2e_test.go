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

// TestHAChaos: three servers, two 4-cpu agents that provision AOEs os1 and
// os2 with the test provision hook (a reimage and a simulated reboot),
// concurrent qsub clients (1- and 2-cpu jobs, one in four asking for an
// AOE), while the leader is SIGKILLed and restarted (once in the middle
// of a reimage), SIGSTOPped until another server leads and SIGCONTed, and,
// in the long form where `ip netns` works, cut off from the others by a
// real network partition. The checks (chaosCheck) use the jobs' own
// records, the agents' image markers and every server's accounting file.
//
// Short form in `make test` (well under two minutes); STRATA_HA_CHAOS_LONG=1
// runs more rounds and more clients.
func TestHAChaos(t *testing.T) {
	long := os.Getenv("STRATA_HA_CHAOS_LONG") != ""
	rounds, clients := 1, 3
	if long {
		rounds, clients = 4, 4
	}
	c := newHACluster(t, 3, 2, 4)
	// Before anything is submitted: the servers move into namespaces.
	part := newPartitioner(t, c, long)
	c.leader(20 * time.Second)
	c.provHook(strings.Replace(localHook, "${SLEEP:-2}", "1", 1), "alarm = 60")
	for _, n := range []string{"node1", "node2"} {
		c.provNode(n, "os1,os2")
	}
	ranLog := filepath.Join(c.work, "ran.log")
	script := filepath.Join(c.work, "job.sh")
	// Each run records itself: id, host, cpus, start and end (ns), the
	// image its host had when it started, and the image it asked for.
	os.WriteFile(script, []byte(fmt.Sprintf(`#!/bin/sh
s=$(date +%%s%%N)
h=$(head -1 "$PBS_NODEFILE")
img=$(cat %q/"$h"/aoe 2>/dev/null || echo none)
sleep 0.3
echo "$PBS_JOBID $h $NCPUS $s $(date +%%s%%N) $img ${WANT:-}" >> %s
`, c.dir, ranLog)), 0o644)

	var mu sync.Mutex
	var printed []string
	failed := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				sel := fmt.Sprintf("select=1:ncpus=%d", 1+(i+k)%2)
				args := []string{"-l", sel}
				if (i+k)%4 == 0 {
					aoe := []string{"os1", "os2"}[(k/4)%2]
					args = []string{"-l", sel + ":aoe=" + aoe, "-v", "WANT=" + aoe}
				}
				r := c.run("qsub", append(args, script)...)
				mu.Lock()
				if r.code == 0 {
					printed = append(printed, strings.TrimSpace(r.stdout))
				} else {
					failed++
					t.Logf("qsub failed (allowed; nothing printed): exit %d %s", r.code, strings.TrimSpace(r.stderr))
				}
				mu.Unlock()
			}
		}(i)
	}

	var gaps []time.Duration
	failover := func(how string, act func(p haProc), undo func(p haProc)) {
		lead := c.leader(30 * time.Second)
		start := time.Now()
		act(lead)
		waitFor(t, 30*time.Second, "another server to lead", func() bool {
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
		if part != nil {
			part.restartDead() // in its namespace
		}
		c.restart()
		waitFor(t, 30*time.Second, p.Name+" back in the cluster", func() bool {
			for _, q := range c.status() {
				if q.Name == p.Name {
					return q.Raft == "follower"
				}
			}
			return false
		})
	}
	kill := func(p haProc) { c.kill9(p.Name) }
	sigstop := func(p haProc) { syscall.Kill(p.Pid, syscall.SIGSTOP) }
	sigcont := func(p haProc) { syscall.Kill(p.Pid, syscall.SIGCONT) }
	for r := 0; r < rounds; r++ {
		// The leader dies while a vnode is being reimaged: the new leader
		// must finish the operation and start the job.
		c.waitProvisioning(30 * time.Second)
		failover("SIGKILL during a reimage", kill, restart)
		failover("SIGKILL", kill, restart)
		failover("SIGSTOP", sigstop, sigcont)
		if part != nil {
			failover("partition", part.isolate, part.heal)
		}
	}
	// Keep submitting a little after the last fault.
	mu.Lock()
	n := len(printed)
	mu.Unlock()
	waitFor(t, 60*time.Second, "submissions after the last fault", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(printed) >= n+20
	})
	close(stop)
	wg.Wait()

	f := chaosCheck(t, c, printed, ranLog)
	// A slow start of a leadership (requests wait for it) is worth seeing.
	for _, p := range c.status() {
		if p.Role != "server" {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(c.dir, p.Name+".log"))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "slow start") || strings.Contains(l, "leader barrier:") {
				t.Logf("%s: %s", p.Name, l)
			}
		}
	}
	longest := time.Duration(0)
	for _, g := range gaps {
		longest = max(longest, g)
	}
	t.Logf("chaos: failovers %d (partitions %d), longest time to a new leader %s, jobs submitted %d (qsub failures %d, jobs in the cluster %d, asking for an AOE %d), provisionings %d, lost: %d, double runs: %d, concurrent runs: %d, most cpus in use on a 4-cpu vnode: %d, oversubscribed: %d, runs on an unconfirmed image: %d, accounting records %d on each of %d servers, differences: %d",
		len(gaps), part.count(), longest.Round(time.Millisecond), len(printed), failed, f.jobs, f.aoeJobs, f.provisions,
		f.lost, f.double, f.concurrent, f.maxCPUs, f.oversubscribed, f.badImage, f.acctRecords, f.servers, f.acctDiffs)
}

// waitProvisioning waits until some job is being provisioned for
// (substate 71), or the time passes (the fault then hits a leader with no
// reimage under way; the test says so).
func (c *cluster) waitProvisioning(timeout time.Duration) {
	c.t.Helper()
	found := pollFor(timeout, func() bool {
		var doc struct {
			Jobs map[string]map[string]any `json:"Jobs"`
		}
		r := c.run("qstat", "-f", "-F", "json")
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
			return false
		}
		for _, j := range doc.Jobs {
			if str(j["substate"]) == "71" {
				return true
			}
		}
		return false
	})
	if !found {
		c.t.Logf("no reimage under way within %s; the leader is killed anyway", timeout)
	}
}

// pollFor is waitFor without failing: whether cond came true in time.
func pollFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond) // poll interval, not synchronisation
	}
	return true
}
