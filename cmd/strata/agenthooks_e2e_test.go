//go:build e2e

package main

// End-to-end tests of the agent hook events (execjob_*, exechost_*): real
// shell and python3 hooks imported with qmgr, delivered to the agents by
// version, each writing a marker file the test reads.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// addHook creates a hook for events, sets extra attributes and imports the
// script as an executable (by its #! line) or python hook.
func (c *cluster) addHook(name, events, attrs, contentType, body string) {
	c.t.Helper()
	p := c.writeHook(name+".hook", body)
	cmd := "create hook " + name + " event=\"" + events + "\""
	if attrs != "" {
		cmd += "," + attrs
	}
	c.must("qmgr", "-c", cmd)
	c.must("qmgr", "-c", "import hook "+name+" "+contentType+" default "+p)
}

// marker returns the path of a marker file everyone may append to.
func (c *cluster) marker(name string) string {
	c.t.Helper()
	p := filepath.Join(c.work, name)
	if err := os.WriteFile(p, nil, 0o666); err != nil {
		c.t.Fatal(err)
	}
	os.Chmod(p, 0o666)
	return p
}

func readMarker(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// TestAgentHookJobEvents runs one hook of every job event, in shell and
// python3, and checks they ran in job order on the mother superior with
// the event's data; it also runs the shipped execjob_begin example.
func TestAgentHookJobEvents(t *testing.T) {
	c := startCluster(t, 1, 1)
	m := c.marker("events")
	c.addHook("hbegin", "execjob_begin", "", "application/x-executable",
		"#!/bin/sh\necho \"begin $STRATA_HOOK_EVENT $STRATA_HOOK_JOBID $STRATA_HOOK_REQUESTOR\" >> "+m+"\n")
	c.addHook("hpro", "execjob_prologue", "", "application/x-python", fmt.Sprintf(`import json, sys
ev = json.load(sys.stdin)
with open(%q, "a") as f:
    f.write("prologue %%s %%s %%s\n" %% (ev["type"], ev["job"]["id"], ",".join(ev["vnode_list"])))
`, m))
	c.addHook("hepi", "execjob_epilogue", "user=pbsuser", "application/x-executable",
		"#!/bin/sh\necho \"epilogue $STRATA_HOOK_JOBID uid=$(id -u)\" >> "+m+"\n")
	c.addHook("hend", "execjob_end", "", "application/x-python", fmt.Sprintf(`import json, sys
ev = json.load(sys.stdin)
with open(%q, "a") as f:
    f.write("end %%s exit=%%s\n" %% (ev["job"]["id"], ev["job"]["Exit_status"]))
`, m))

	// The shipped example logs to a fixed system path; it runs unchanged.
	_, self, _, _ := runtime.Caller(0)
	example := filepath.Join(filepath.Dir(self), "..", "..", "hooks", "examples", "execjob_begin_log.sh")
	const exampleLog = "/var/log/strata-job-starts.log"
	useExample := os.Geteuid() == 0
	var before string
	if useExample {
		before = readMarker(exampleLog)
		c.must("qmgr", "-c", "create hook beginlog event=execjob_begin,order=2")
		c.must("qmgr", "-c", "import hook beginlog application/x-executable default "+example)
	}

	id := c.submit("echo job >> " + m + "\nexit 3\n")
	j := c.waitState(id, 30*time.Second, "F")
	if str(j["Exit_status"]) != "3" {
		t.Errorf("Exit_status %v, comment %v", j["Exit_status"], j["comment"])
	}
	waitFor(t, 10*time.Second, "the execjob_end hook", func() bool { return strings.Contains(readMarker(m), "end ") })
	want := []string{
		"begin execjob_begin " + id + " pbs_mom",
		"prologue execjob_prologue " + id + " node1",
		"job",
		"epilogue " + id + " uid=0",
		"end " + id + " exit=3",
	}
	if got := strings.Split(strings.TrimSpace(readMarker(m)), "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hook order/data:\n got %q\nwant %q", got, want)
	}
	if useExample {
		added := strings.TrimPrefix(readMarker(exampleLog), before)
		if !strings.Contains(added, " "+id+" owner=root") {
			t.Errorf("shipped execjob_begin example did not log the job: %q", added)
		}
	}
}

// TestAgentHostEvents: exechost_periodic runs every freq seconds on an
// idle agent (the hook change wakes its work poll), and exechost_startup
// runs when the agent starts.
func TestAgentHostEvents(t *testing.T) {
	c := startCluster(t, 1, 1)
	m := c.marker("host")
	c.addHook("per", "exechost_periodic", "freq=1", "application/x-executable",
		"#!/bin/sh\necho \"periodic $STRATA_HOOK_EVENT\" >> "+m+"\n")
	waitFor(t, 20*time.Second, "two periodic runs", func() bool {
		return strings.Count(readMarker(m), "periodic exechost_periodic") >= 2
	})
	c.addHook("start", "exechost_startup", "", "application/x-executable",
		"#!/bin/sh\necho \"startup $STRATA_HOOK_EVENT\" >> "+m+"\n")
	if strings.Contains(readMarker(m), "startup") {
		t.Fatalf("startup hook ran without an agent start")
	}
	c.kill9("node1")
	c.restart()
	waitFor(t, 20*time.Second, "the startup hook", func() bool {
		return strings.Contains(readMarker(m), "startup exechost_startup")
	})
}

// TestAgentHookBeginReject: a rejecting execjob_begin hook keeps the job
// from running; it is requeued (Exit_status -16, run_count counted) until
// PBS's limit holds it.
func TestAgentHookBeginReject(t *testing.T) {
	c := startCluster(t, 1, 1)
	m := c.marker("ran")
	c.addHook("nojobs", "execjob_begin", "", "application/x-executable",
		"#!/bin/sh\necho '{\"reject_message\": \"no jobs today\"}'\nexit 1\n")
	id := c.submit("echo ran >> " + m + "\n")
	j := c.waitState(id, 120*time.Second, "H")
	if str(j["comment"]) != "job held, too many failed attempts to run" || str(j["run_count"]) != "21" {
		t.Errorf("held job: comment %v run_count %v", j["comment"], j["run_count"])
	}
	if got := readMarker(m); got != "" {
		t.Errorf("the rejected job ran: %q", got)
	}
	if tr := c.run("tracejob", id); !strings.Contains(tr.stdout, "Job requeued: no jobs today") {
		t.Errorf("tracejob lacks the requeue with the hook's message:\n%s", tr.stdout)
	}
}

// TestAgentHookTimeoutOfflines: an execjob_begin hook that outlives its
// alarm is killed with its process group, the job is requeued, and
// fail_action=offline_vnodes offlines the host with PBS's comment.
func TestAgentHookTimeoutOfflines(t *testing.T) {
	c := startCluster(t, 1, 1)
	m := c.marker("ran")
	child := c.marker("child")
	c.addHook("slow", "execjob_begin", "alarm=1,fail_action=offline_vnodes", "application/x-executable",
		"#!/bin/sh\nsleep 60 &\necho $! > "+child+"\nsleep 30\n")
	id := c.submit("echo ran >> " + m + "\n")
	waitFor(t, 30*time.Second, "node1 offlined by the hook", func() bool {
		out := c.must("pbsnodes", "node1")
		return strings.Contains(out, "offline") && strings.Contains(out, "offlined by hook 'slow' due to hook error")
	})
	j := c.waitState(id, 10*time.Second, "Q")
	if str(j["run_count"]) != "1" {
		t.Errorf("run_count %v after one rejected start", j["run_count"])
	}
	if tr := c.run("tracejob", id); !strings.Contains(tr.stdout, "alarm call while running execjob_begin hook 'slow', request rejected") {
		t.Errorf("tracejob lacks the alarm message:\n%s", tr.stdout)
	}
	// The alarm killed the hook's whole process group, its background
	// child included.
	var pid int
	fmt.Sscan(readMarker(child), &pid)
	if pid <= 0 {
		t.Fatalf("hook child pid not recorded: %q", readMarker(child))
	}
	waitFor(t, 10*time.Second, "the hook's child to be killed", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(b), ") Z")
	})
	if readMarker(m) != "" {
		t.Errorf("the job ran: %q", readMarker(m))
	}
}

// TestAgentHookFetchedAfterDowntime: a hook changed while an agent is down
// is fetched when it registers again, before its next job starts; an agent
// restarted without a change keeps its spooled copy and fetches nothing.
func TestAgentHookFetchedAfterDowntime(t *testing.T) {
	c := startCluster(t, 2, 1)
	m := c.marker("versions")
	p := c.writeHook("ver.hook", "#!/bin/sh\necho \"v1 $STRATA_HOOK_JOBID\" >> "+m+"\n")
	c.must("qmgr", "-c", "create hook ver event=execjob_begin")
	c.must("qmgr", "-c", "import hook ver application/x-executable default "+p)
	id1 := c.submit("true\n", "-l", "select=1:host=node2")
	c.waitState(id1, 30*time.Second, "F")

	c.kill9("node2")
	p = c.writeHook("ver.hook", "#!/bin/sh\necho \"v2 $STRATA_HOOK_JOBID\" >> "+m+"\n")
	c.must("qmgr", "-c", "import hook ver application/x-executable default "+p)
	c.restart()
	id2 := c.submit("true\n", "-l", "select=1:host=node2")
	c.waitState(id2, 30*time.Second, "F")
	got := readMarker(m)
	if !strings.Contains(got, "v1 "+id1+"\n") || !strings.Contains(got, "v2 "+id2+"\n") || strings.Contains(got, "v1 "+id2) {
		t.Errorf("hook versions per job:\n%s", got)
	}

	// node1 holds the current version in its spool: a restart fetches
	// nothing.
	logPath := filepath.Join(c.dir, "node1.log")
	fetched := strings.Count(readMarker(logPath), "hooks: fetched version")
	registered := strings.Count(readMarker(logPath), "registered host node1")
	c.kill9("node1")
	c.restart()
	waitFor(t, 20*time.Second, "node1 to register again", func() bool {
		return strings.Count(readMarker(logPath), "registered host node1") > registered
	})
	id3 := c.submit("true\n", "-l", "select=1:host=node1")
	c.waitState(id3, 30*time.Second, "F")
	if n := strings.Count(readMarker(logPath), "hooks: fetched version"); n != fetched {
		t.Errorf("node1 fetched the hooks again after a restart without a change (%d -> %d)", fetched, n)
	}
	if !strings.Contains(readMarker(m), "v2 "+id3+"\n") {
		t.Errorf("node1 job did not run the current hook:\n%s", readMarker(m))
	}
}
