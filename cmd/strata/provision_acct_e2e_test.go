//go:build e2e

package main

// End-to-end tests of the accounting records and qstat -Bf insight of
// provisioning, and of the agent-hook start gate after an OS reboot.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// acctLog reads the server's accounting files, in date order.
func (c *cluster) acctLog() string { return c.dataFiles("accounting") }

// dataFiles reads the server's dated files (YYYYMMDD) in a directory of its
// data_dir (accounting, server_logs), in date order.
func (c *cluster) dataFiles(dir string) string {
	files, _ := filepath.Glob(filepath.Join(c.dir, "server1", "data", dir, "[0-9]*"))
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	return b.String()
}

// acctTypes lists the record types of a job, in order.
func acctTypes(log, id string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		parts := strings.SplitN(l, ";", 4)
		if len(parts) == 4 && parts[2] == id {
			out = append(out, parts[1])
		}
	}
	return strings.Join(out, "")
}

func TestProvisionAccountingAndQstatB(t *testing.T) {
	c := startCluster(t, 1, 2)
	c.provHook("sleep 1\nprintf '%s\\n' \"$STRATA_HOOK_AOE\" > \"$STRATA_HOOK_AOE_FILE\"\ncase \"$STRATA_HOOK_AOE\" in app*) exit 1 ;; esac\nexit 7", "alarm = 20")
	c.provNode("node1", "app1,bad2")
	id := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app1")
	c.waitState(id, 30*time.Second, "F")
	bad := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=bad2")
	c.waitNode("node1", "comment", "Vnode offlined since it failed provisioning", 20*time.Second)
	c.waitState(bad, 10*time.Second, "Q")
	c.must("qdel", bad)

	var log string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log = c.acctLog()
		if acctTypes(log, id) == "QPpSE" && acctTypes(log, bad) == "QPpRD" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("accounting records of %s %q and %s %q:\n%s", id, acctTypes(log, id), bad, acctTypes(log, bad), log)
		}
	}
	line := regexp.MustCompile(`(?m)^\d\d/\d\d/\d{4} \d\d:\d\d:\d\d;p;` + regexp.QuoteMeta(id) + `;user=\S+ group=\S* project=_pbs_project_default jobname=\S+ queue=workq provision_vnode=node1:aoe=app1 provision_event=END status=SUCCESS end_time=\d+$`)
	if !line.MatchString(log) {
		t.Errorf("no p SUCCESS record for %s:\n%s", id, log)
	}
	if !strings.Contains(log, ";p;"+bad+";") || !strings.Contains(log, "provision_event=END status=FAILURE") {
		t.Errorf("no p FAILURE record for %s:\n%s", bad, log)
	}
	if !regexp.MustCompile(`;E;` + regexp.QuoteMeta(id) + `;.* exec_vnode=\(node1:aoe=app1:ncpus=1\) .*Exit_status=0 .*run_count=1`).MatchString(log) {
		t.Errorf("E record:\n%s", log)
	}

	out := c.must("qstat", "-Bf")
	for _, want := range []string{
		"provision_enable = True", "max_concurrent_provision = 5", "provision_waiting = 0",
		"provision_successes.app1 = 1", "provision_failures.bad2 = 1", "provision_estimate.bad2 = 00:10:00",
		"suggested_max_concurrent_provision = 5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("qstat -Bf lacks %q:\n%s", want, out)
		}
	}
	if out := c.must("qstat", "-Bf", "-F", "json"); !strings.Contains(out, `"provision_successes":`) {
		t.Errorf("qstat -Bf -F json:\n%s", out)
	}
}

// TestProvisionOSRebootWaitsForAgentHooks: agent hooks created while a
// host is being reimaged are on the host before the job starts there: the
// agent that comes back from the reboot starts the job only with the
// current hook set (its start gate), so the new execjob_begin runs for it.
func TestProvisionOSRebootWaitsForAgentHooks(t *testing.T) {
	c := startCluster(t, 1, 2)
	c.provHook("sleep 3\nprintf '%s\\n' \"$STRATA_HOOK_AOE\" > \"$STRATA_HOOK_AOE_FILE\"\nexit 0", "alarm = 30")
	c.provNode("node1", "os2")
	id := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=os2")
	c.waitNode("node1", "state", "provisioning", 10*time.Second)
	m := c.marker("begin")
	c.addHook("hbegin", "execjob_begin", "", "application/x-executable",
		"#!/bin/sh\necho \"begin $STRATA_HOOK_JOBID\" >> "+m+"\n")
	if j := c.job(id); str(j["substate"]) != "71" {
		t.Fatalf("job left provisioning before the hook was added: %v", j["substate"])
	}
	c.waitState(id, 40*time.Second, "F")
	if got := c.nodeAttr("node1", "current_aoe"); got != "os2" {
		t.Errorf("current_aoe %q", got)
	}
	waitFor(t, 10*time.Second, "the begin hook", func() bool { return strings.Contains(readMarker(m), "begin "+id) })
}
