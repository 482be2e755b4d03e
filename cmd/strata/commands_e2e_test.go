//go:build e2e

package main

import (
	"strings"
	"testing"
	"time"
)

// TestHoldReleaseAlterSelect drives qhold, qrls, qalter, qselect, qmove and
// tracejob against a real cluster.
func TestHoldReleaseAlterSelect(t *testing.T) {
	c := startCluster(t, 1, 2)
	id := c.submit("#!/bin/sh\nsleep 30\n", "-h", "-N", "held")
	if j := c.job(id); j["job_state"] != "H" || j["Hold_Types"] != "u" {
		t.Fatalf("qsub -h: state %v hold %v", j["job_state"], j["Hold_Types"])
	}
	if sel := c.must("qselect", "-s", "H"); !strings.Contains(sel, id) {
		t.Errorf("qselect -s H: %q", sel)
	}
	c.must("qalter", "-N", "renamed", "-l", "walltime=00:05:00", id)
	if j := c.job(id); j["Job_Name"] != "renamed" {
		t.Errorf("qalter -N: %v", j["Job_Name"])
	}
	if r := c.run("qsig", id); r.code != 168 || r.stderr != "qsig: Request invalid for state of job "+id+"\n" {
		t.Errorf("qsig on a held job: exit %d %q", r.code, r.stderr)
	}
	if r := c.run("qhold", "-h", "x", id); r.code != 2 || !strings.HasPrefix(r.stderr, "qhold: illegal -h value\n") {
		t.Errorf("qhold -h x: exit %d %q", r.code, r.stderr)
	}
	if r := c.run("qrls", "999999"); r.code != 153 || r.stderr != "qrls: Unknown Job Id 999999.e2e\n" {
		t.Errorf("qrls unknown: exit %d %q", r.code, r.stderr)
	}
	c.must("qrls", id)
	c.waitState(id, 30*time.Second, "R")
	if r := c.run("qalter", "-l", "ncpus=2", id); r.code != 167 ||
		r.stderr != "qalter: Cannot modify attribute while job running  Resource_List.ncpus "+id+"\n" {
		t.Errorf("qalter ncpus while running: exit %d %q", r.code, r.stderr)
	}
	c.must("qdel", id)
	c.waitState(id, 30*time.Second, "F")
	trace := c.must("tracejob", id)
	for _, want := range []string{"Job: " + id, "Job Queued at request of", "Holds u released", "Job Run at request of Scheduler"} {
		if !strings.Contains(trace, want) {
			t.Errorf("tracejob lacks %q:\n%s", want, trace)
		}
	}
}

// TestDependenciesExecutionTimeAndBlock covers -W depend, -a and -W block.
func TestDependenciesExecutionTimeAndBlock(t *testing.T) {
	c := startCluster(t, 1, 2)
	// The parent is held until the dependents are checked, so a fast
	// machine cannot finish it first.
	parent := c.submit("#!/bin/sh\nexit 1\n", "-h")
	okChild := c.submit("#!/bin/sh\ntrue\n", "-W", "depend=afterok:"+strings.Split(parent, ".")[0])
	notokChild := c.submit("#!/bin/sh\ntrue\n", "-W", "depend=afternotok:"+parent)
	if j := c.job(okChild); j["job_state"] != "H" || str(j["substate"]) != "22" {
		t.Errorf("dependent job: %v/%v", j["job_state"], j["substate"])
	}
	c.must("qrls", parent)
	c.waitState(notokChild, 60*time.Second, "F")
	if j := c.waitState(okChild, 30*time.Second, "F"); str(j["substate"]) != "91" {
		t.Errorf("afterok child of a failed job: substate %v, want 91 (deleted)", j["substate"])
	}
	if r := c.run("qsub", "-W", "depend=afterok:987654", "--", "/bin/true"); r.code != 206 || r.stderr != "qsub: Invalid Job Dependency\n" {
		t.Errorf("unknown parent: exit %d %q", r.code, r.stderr)
	}
	later := time.Now().Add(2 * time.Hour).Format("1504")
	w := c.submit("#!/bin/sh\ntrue\n", "-a", later)
	if j := c.job(w); j["job_state"] != "W" || str(j["substate"]) != "30" {
		t.Errorf("qsub -a: %v/%v", j["job_state"], j["substate"])
	}
	r := c.run("qsub", "-W", "block=true", "--", "/bin/sh", "-c", "exit 7")
	if r.code != 7 {
		t.Errorf("qsub -W block=true: exit %d, want the job's 7 (%q)", r.code, r.stderr)
	}
}

// TestSuspendResumeRerunAndNodes covers qsig suspend/resume, qrerun, qrun
// and pbsnodes -o/-r/-C.
func TestSuspendResumeRerunAndNodes(t *testing.T) {
	c := startCluster(t, 1, 2)
	id := c.submit("#!/bin/sh\nsleep 60\n", "-l", "select=1:ncpus=2")
	waitFor(t, 30*time.Second, "the job to start", func() bool { return str(c.job(id)["substate"]) == "42" })
	c.must("qsig", "-s", "suspend", id)
	if j := c.job(id); j["job_state"] != "S" || str(j["substate"]) != "43" {
		t.Errorf("suspended: %v/%v", j["job_state"], j["substate"])
	}
	c.must("qsig", "-s", "resume", id)
	c.waitState(id, 10*time.Second, "R")
	c.must("qrerun", id)
	waitFor(t, 30*time.Second, "rerun to requeue and restart", func() bool {
		j := c.job(id)
		return str(j["run_count"]) == "2"
	})
	c.must("qdel", id)
	c.waitState(id, 30*time.Second, "F")

	c.must("pbsnodes", "-o", "-C", "disk replaced", "node1")
	if l := c.must("pbsnodes", "-l"); !strings.HasPrefix(l, "node1                offline disk replaced") {
		t.Errorf("pbsnodes -l: %q", l)
	}
	held := c.submit("#!/bin/sh\ntrue\n")
	if r := c.run("qrun", "-H", "node1", held); r.code == 0 {
		t.Errorf("qrun onto an offline vnode succeeded")
	}
	c.must("pbsnodes", "-r", "node1")
	c.waitState(held, 30*time.Second, "F")
	if q := c.must("qstat", "-Q"); !strings.Contains(q, "workq") || !strings.HasPrefix(q, "Queue              Max   Tot Ena Str") {
		t.Errorf("qstat -Q:\n%s", q)
	}
}

// TestDefaultQsubArguments: the server's default_qsub_arguments apply below
// the script's directives, which apply below the command line.
func TestDefaultQsubArguments(t *testing.T) {
	c := startCluster(t, 1, 1)
	c.must("qmgr", "-c", `set server default_qsub_arguments = "-N fromdefault -l walltime=00:07:00 -p 5"`)
	if out := c.must("qmgr", "-c", "list server"); !strings.Contains(out, "default_qsub_arguments = -N fromdefault -l walltime=00:07:00 -p 5") {
		t.Errorf("list server:\n%s", out)
	}
	plain := c.submit("true\n", "-h")
	j := c.job(plain)
	if j["Job_Name"] != "fromdefault" || str(j["Priority"]) != "5" || str(j["Resource_List"].(map[string]any)["walltime"]) != "00:07:00" {
		t.Errorf("defaults not applied: %v %v %v", j["Job_Name"], j["Priority"], j["Resource_List"])
	}
	layered := c.submit("#PBS -N fromscript\n#PBS -p 3\ntrue\n", "-h", "-p", "1")
	j = c.job(layered)
	if j["Job_Name"] != "fromscript" || str(j["Priority"]) != "1" || str(j["Resource_List"].(map[string]any)["walltime"]) != "00:07:00" {
		t.Errorf("precedence wrong: name %v priority %v list %v", j["Job_Name"], j["Priority"], j["Resource_List"])
	}
	// qsub learns the defaults from the refusal of a stale submission
	// (one round trip when they are unchanged): once unset, they stop
	// applying at once.
	c.must("qmgr", "-c", "unset server default_qsub_arguments")
	bare := c.submit("true\n", "-h")
	if j = c.job(bare); j["Job_Name"] == "fromdefault" || str(j["Priority"]) == "5" {
		t.Errorf("unset defaults still applied: %v %v", j["Job_Name"], j["Priority"])
	}
	c.must("qdel", plain, layered, bare)
}
