//go:build e2e

package main

// End-to-end tests of preemption: an express job (queue priority at or
// above preempt_queue_prio) preempts a running job on a full node by each
// preempt_order method, observed on the real job processes, in qstat and
// in the accounting log.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// preemptSetup starts a one-node cluster (2 cpus) with an express queue
// and sets preempt_order; it runs a 2-cpu normal job that writes its pid
// and spins, and returns the job id and pid.
func preemptSetup(t *testing.T, order string) (*cluster, string, int) {
	t.Helper()
	c := startCluster(t, 1, 2)
	c.must("qmgr", "-c", "create queue express queue_type=execution,priority=200,enabled=true,started=true")
	c.must("qmgr", "-c", "set sched preempt_order = "+order)
	c.must("qmgr", "-c", "set server job_history_enable = true")
	pidFile := filepath.Join(c.work, "victim.pid")
	id := c.submit(fmt.Sprintf("#!/bin/sh\necho $$ > %s\nwhile :; do sleep 0.1; done\n", pidFile), "-l", "select=1:ncpus=2", "-N", "victim")
	waitFor(t, 60*time.Second, "the normal job to run", func() bool { return str(c.job(id)["substate"]) == "42" })
	return c, id, readPid(t, pidFile)
}

// tracejobHas waits for tracejob to show text for the job.
func (c *cluster) tracejobHas(id, text string) {
	c.t.Helper()
	waitFor(c.t, 15*time.Second, "tracejob to show "+text, func() bool {
		return strings.Contains(c.run("tracejob", id).stdout, text)
	})
}

// submitExpress submits a short 2-cpu express job.
func (c *cluster) submitExpress() string {
	c.t.Helper()
	return c.submit("#!/bin/sh\nsleep 2\n", "-q", "express", "-l", "select=1:ncpus=2", "-N", "express")
}

// preemptAcct returns the accounting record types written for id, in
// order (provision_acct_e2e_test.go reads the log).
func preemptAcct(c *cluster, id string) string { return acctTypes(c.acctLog(), id) }

func TestPreemptSuspendResume(t *testing.T) {
	c, victim, pid := preemptSetup(t, "S")
	ex := c.submitExpress()
	waitFor(t, 30*time.Second, "the victim's processes to stop", func() bool { return procState(pid) == "T" })
	j := c.job(victim)
	if j["job_state"] != "S" || str(j["substate"]) != "45" || str(j["comment"]) != "Job preempted by suspension" {
		t.Fatalf("victim state %v/%v comment %q, want S/45 preempted by suspension", j["job_state"], j["substate"], j["comment"])
	}
	// The attack: continuing the stopped job behind the scheduler's back
	// (its cpus now belong to the express job) is refused.
	if r := c.run("qsig", "-s", "CONT", victim); r.code == 0 || !strings.Contains(r.stderr, "Request invalid for state of job") {
		t.Errorf("qsig -s CONT on a preempted job: %+v", r)
	}
	if s := procState(pid); s != "T" {
		t.Errorf("victim process state %q after a refused SIGCONT, want T", s)
	}
	c.waitState(ex, 30*time.Second, "R", "F")
	// The express job ends; the scheduler resumes the victim, whose
	// processes run again.
	c.waitState(ex, 60*time.Second, "F")
	waitFor(t, 60*time.Second, "the victim to be resumed", func() bool {
		j := c.job(victim)
		return j["job_state"] == "R" && str(j["substate"]) == "42"
	})
	waitFor(t, 15*time.Second, "the victim's processes to run", func() bool { s := procState(pid); return s != "T" && s != "" })
	waitFor(t, 15*time.Second, "the z and r accounting records", func() bool { return strings.Contains(preemptAcct(c, victim), "zr") })
	c.must("qdel", victim)
}

func TestPreemptRequeue(t *testing.T) {
	c, victim, pid := preemptSetup(t, "R")
	ex := c.submitExpress()
	c.waitState(ex, 30*time.Second, "R", "F")
	c.waitState(victim, 30*time.Second, "Q")
	c.tracejobHas(victim, "Job preempted by requeuing for "+ex)
	// The old run's processes are killed.
	waitFor(t, 30*time.Second, "the requeued run to be killed", func() bool { return procState(pid) == "" || procState(pid) == "Z" })
	waitFor(t, 15*time.Second, "the S and R accounting records", func() bool { return strings.Contains(preemptAcct(c, victim), "SR") })
	// It runs again once the express job is done.
	c.waitState(ex, 60*time.Second, "F")
	waitFor(t, 60*time.Second, "the victim to run again", func() bool { return str(c.job(victim)["run_count"]) == "2" })
	c.must("qdel", victim)
}

func TestPreemptDelete(t *testing.T) {
	c, victim, pid := preemptSetup(t, "D")
	ex := c.submitExpress()
	c.waitState(ex, 30*time.Second, "R", "F")
	j := c.waitState(victim, 30*time.Second, "F")
	if !strings.Contains(str(j["comment"]), "Job preempted by deletion") {
		t.Errorf("victim comment %q", j["comment"])
	}
	waitFor(t, 30*time.Second, "the deleted job's processes to go", func() bool { return procState(pid) == "" || procState(pid) == "Z" })
	waitFor(t, 15*time.Second, "the D accounting record", func() bool { return strings.Contains(preemptAcct(c, victim), "D") })
}

// TestPreemptCheckpoint: the site's execjob_checkpoint hook runs while the
// victim still runs (it sees the job's session), then the victim is
// killed and requeued, and only then does the express job start.
func TestPreemptCheckpoint(t *testing.T) {
	c, victim, pid := preemptSetup(t, "C")
	m := c.marker("checkpoint")
	c.addHook("ckpt", "execjob_checkpoint", "", "application/x-python", fmt.Sprintf(`import json, os, sys
ev = json.load(sys.stdin)
sid = ev["job"]["session_id"]
state = open("/proc/%%d/stat" %% sid).read().rsplit(")", 1)[1].split()[0]
with open(%q, "a") as f:
    f.write("checkpoint %%s %%s alive=%%s\n" %% (ev["type"], ev["job"]["id"], state != "Z"))
`, m))
	// The hook reaches the agent before the victim's run takes its
	// snapshot only for jobs started later: start a fresh victim.
	c.must("qdel", victim)
	c.waitState(victim, 30*time.Second, "F")
	waitFor(t, 30*time.Second, "the first victim's processes to go", func() bool { return procState(pid) == "" || procState(pid) == "Z" })
	pidFile := filepath.Join(c.work, "victim2.pid")
	victim = c.submit(fmt.Sprintf("#!/bin/sh\necho $$ > %s\nwhile :; do sleep 0.1; done\n", pidFile), "-l", "select=1:ncpus=2", "-N", "victim2")
	waitFor(t, 60*time.Second, "the normal job to run", func() bool { return str(c.job(victim)["substate"]) == "42" })
	pid = readPid(t, pidFile)

	ex := c.submitExpress()
	waitFor(t, 30*time.Second, "the checkpoint hook", func() bool { return strings.Contains(readMarker(m), "checkpoint ") })
	if got, want := strings.TrimSpace(readMarker(m)), "checkpoint execjob_checkpoint "+victim+" alive=True"; got != want {
		t.Errorf("hook wrote %q, want %q", got, want)
	}
	c.waitState(victim, 30*time.Second, "Q")
	c.tracejobHas(victim, "Job preempted by checkpointing for "+ex)
	waitFor(t, 30*time.Second, "the victim's processes to go", func() bool { return procState(pid) == "" || procState(pid) == "Z" })
	c.waitState(ex, 30*time.Second, "R", "F")
	waitFor(t, 15*time.Second, "the C and R accounting records", func() bool {
		got := preemptAcct(c, victim)
		return strings.Contains(got, "C") && strings.Contains(got, "R")
	})
	c.must("qdel", victim)
}

// TestPreemptSettingsRoundTrip: qmgr print server carries the preemption
// settings and max_run_soft into a fresh cluster unchanged.
func TestPreemptSettingsRoundTrip(t *testing.T) {
	a := startCluster(t, 1, 1)
	a.must("qmgr", "-c", `set sched preempt_prio = "express_queue, normal_jobs, queue_softlimits", preempt_order = "SCR 80 SC 50 S"`)
	a.must("qmgr", "-c", "set sched preempt_queue_prio = 120, max_starve = 12:00:00, preemptive_sched = true")
	a.must("qmgr", "-c", "set queue workq max_run_soft = [u:PBS_GENERIC=2]")
	a.must("qmgr", "-c", "set server max_run_soft = [o:PBS_ALL=10]")
	cfg := a.must("qmgr", "-c", "print server")
	for _, want := range []string{`set sched preempt_prio = "express_queue, normal_jobs, queue_softlimits"`, `set sched preempt_order = "SCR 80 SC 50 S"`,
		"set sched preempt_queue_prio = 120", "set queue workq max_run_soft = "} {
		if !strings.Contains(cfg, want) {
			t.Errorf("print server lacks %q:\n%s", want, cfg)
		}
	}
	b := startCluster(t, 1, 1)
	b.must("qmgr", "-c", "delete queue workq")
	if r := b.runWithInput(cfg, "qmgr"); r.code != 0 {
		t.Fatalf("replay: %+v", r)
	}
	if got := b.must("qmgr", "-c", "print server"); got != cfg {
		t.Errorf("round trip differs:\n--- first ---\n%s\n--- second ---\n%s", cfg, got)
	}
	if r := a.run("qmgr", "-c", "set sched preempt_order = SX"); r.code == 0 || !strings.Contains(r.stderr, "Illegal attribute or resource value") {
		t.Errorf("bad preempt_order: %+v", r)
	}
}
