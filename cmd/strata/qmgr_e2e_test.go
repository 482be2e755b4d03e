//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestQmgrObjects drives every qmgr object through a real cluster and checks
// list/print layouts and PBS errors.
func TestQmgrObjects(t *testing.T) {
	c := startCluster(t, 1, 2)
	c.must("qmgr", "-c", "create resource foo type=string,flag=h")
	c.must("qmgr", "-c", "c q q2 enabled=true,started=t, resources_max.ncpus=1, priority=5")
	c.must("qmgr", "-c", "s q q2 acl_users = alice; s q q2 acl_users += bob")
	c.must("qmgr", "-c", `s s comment = "site config", max_queued = "[u:PBS_GENERIC=50]"`)
	c.must("qmgr", "-c", "set sched strict_ordering = true")
	c.must("qmgr", "-c", "s n node1 comment=maint,resources_available.foo=bar,sort_priority=7")

	out := c.must("qmgr", "-c", "p q q2")
	for _, want := range []string{"create queue q2\n", "set queue q2 acl_users = alice\n", "set queue q2 acl_users += bob\n",
		"set queue q2 resources_max.ncpus = 1\n", "set queue q2 priority = 5\n", "set queue q2 enabled = True\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("print queue q2 lacks %q:\n%s", want, out)
		}
	}
	out = c.must("qmgr", "-c", "l n node1")
	for _, want := range []string{"Node node1\n", "    comment = maint\n", "    resources_available.foo = bar\n", "    sort_priority = 7\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("list node lacks %q:\n%s", want, out)
		}
	}
	if out := c.must("qmgr", "-c", "l sched"); !strings.Contains(out, "strict_ordering = True") {
		t.Errorf("list sched: %s", out)
	}
	// Unknown objects and bad values give PBS's two lines and exit codes.
	r := c.run("qmgr", "-c", "s q nosuch enabled=true")
	if r.code != 170 || r.stderr != "qmgr obj=nosuch svr=default: Unknown queue\nqmgr: Error (15018) returned from server\n" {
		t.Errorf("unknown queue: %+v", r)
	}
	r = c.run("qmgr", "-c", "s n node1 current_aoe=rhel")
	if !strings.Contains(r.stderr, "Current AOE does not match with resources_available.aoe") {
		t.Errorf("current_aoe: %+v", r)
	}
	r = c.run("qmgr", "-c", "frob server")
	if r.code != 1 || !strings.Contains(r.stderr, "Illegal operation: frob") {
		t.Errorf("bad command: %+v", r)
	}
	r = c.run("qmgr", "-c", "set queue q2 enabled true")
	if r.code != 4 || !strings.Contains(r.stderr, "qmgr: Syntax error\nset queue q2 enabled true\n") {
		t.Errorf("syntax error: %+v", r)
	}
	// Queue limits and ACLs at submission.
	r = c.runWithInput("true\n", "qsub", "-q", "q2", "-l", "select=1:ncpus=2")
	if r.code != 188 {
		t.Errorf("resources_max: %+v", r)
	}
	c.must("qmgr", "-c", "s q q2 acl_user_enable=true")
	r = c.runWithInput("true\n", "qsub", "-q", "q2")
	if r.code != 174 || !strings.Contains(r.stderr, "Access to queue is denied") {
		t.Errorf("acl: %+v", r)
	}
	// Create and delete a node, delete a queue and a resource.
	c.must("qmgr", "-c", "create node extra")
	if out := c.must("pbsnodes", "extra"); !strings.Contains(out, "state-unknown") && !strings.Contains(out, "down") {
		t.Errorf("created node: %s", out)
	}
	c.must("qmgr", "-c", "delete node extra")
	c.must("qmgr", "-c", "delete queue q2")
	c.must("qmgr", "-c", "unset node node1 resources_available.foo")
	c.must("qmgr", "-c", "delete resource foo")
}

// TestQmgrDeniedToUsers checks that an ordinary user can list but not
// change configuration.
func TestQmgrDeniedToUsers(t *testing.T) {
	c := startCluster(t, 1, 1)
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	before := c.must("qmgr", "-c", "p s")
	r := c.runAs(nobody, "", "qmgr", "-c", "set server scheduling=false")
	if r.code != 159 || !strings.Contains(r.stderr, "Unauthorized Request") {
		t.Errorf("nobody set: %+v", r)
	}
	if r := c.runAs(nobody, "", "qmgr", "-c", "list queue workq"); r.code != 0 || !strings.Contains(r.stdout, "Queue workq") {
		t.Errorf("nobody list: %+v", r)
	}
	if after := c.must("qmgr", "-c", "p s"); after != before {
		t.Errorf("a denied request changed the configuration:\n%s\n---\n%s", before, after)
	}
}

// TestQmgrPrintRoundTrip feeds print server output of a configured cluster
// into a fresh one and expects the same configuration.
func TestQmgrPrintRoundTrip(t *testing.T) {
	a := startCluster(t, 1, 1)
	a.must("qmgr", "-c", "create resource scratch type=size,flag=hn")
	a.must("qmgr", "-c", "create resource licenses type=string_array,flag=h")
	a.must("qmgr", "-c", "create queue big enabled=true,started=true,priority=10,resources_max.ncpus=64,resources_default.walltime=01:00:00")
	a.must("qmgr", "-c", "set queue big acl_users=alice,acl_users+=bob,max_run=[u:PBS_GENERIC=4]")
	a.must("qmgr", "-c", `set server comment="two words, a comma", managers=root, operators+=alice, resources_default.scratch=1gb, max_queued="[o:PBS_ALL=1000]"`)
	a.must("qmgr", "-c", `set sched node_sort_key="ncpus HIGH unused", job_sort_key="walltime LOW", backfill_depth=3`)
	replayPrintServer(t, a.must("qmgr", "-c", "print server"))
}

// writeHook writes an executable hook file in the cluster's work directory.
func (c *cluster) writeHook(name, body string) string {
	c.t.Helper()
	p := filepath.Join(c.work, name)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// TestHooksServerEvents runs real shell and python hooks for queuejob and
// runjob, and each rejection path.
func TestHooksServerEvents(t *testing.T) {
	c := startCluster(t, 1, 2)
	py := c.writeHook("walltime.py", `import json, sys
ev = json.load(sys.stdin)
if "walltime" not in ev["job"]["Resource_List"]:
    print(json.dumps({"job": {"Resource_List.walltime": "00:10:00"}}))
`)
	c.must("qmgr", "-c", "create hook defwall event=queuejob")
	c.must("qmgr", "-c", "import hook defwall application/x-python default "+py)
	out := c.must("qmgr", "-c", "list hook defwall")
	for _, want := range []string{"Hook defwall\n", "    type = site\n", "    enabled = true\n", "    event = queuejob\n", "    alarm = 30\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("list hook lacks %q:\n%s", want, out)
		}
	}
	if got := c.must("qmgr", "-c", "export hook defwall application/x-python default"); !strings.Contains(got, "import json") {
		t.Errorf("export: %q", got)
	}
	id := c.submit("sleep 0\n")
	j := c.waitState(id, 20*time.Second, "F")
	if rl, _ := j["Resource_List"].(map[string]any); rl["walltime"] != "00:10:00" {
		t.Errorf("queuejob hook did not set walltime: %v", j["Resource_List"])
	}

	// runjob: reject jobs named "nope"; the job stays queued with the message.
	sh := c.writeHook("runjob.sh", "#!/bin/sh\nif grep -q '\"Job_Name\":\"nope\"' ; then echo '{\"reject_message\":\"nope is not allowed\"}'; exit 1; fi\nexit 0\n")
	c.must("qmgr", "-c", "create hook norun event=runjob; import hook norun application/x-executable default "+sh)
	id = c.submit("sleep 0\n", "-N", "nope")
	waitFor(t, 20*time.Second, "runjob rejection comment", func() bool {
		j := c.job(id)
		return j["job_state"] == "Q" && strings.Contains(str(j["comment"]), "nope is not allowed")
	})
	c.must("qmgr", "-c", "delete hook norun")
	c.waitState(id, 20*time.Second, "F")

	// queuejob rejection by exit status, by timeout, by malformed output.
	for _, tc := range []struct{ name, script, alarm, want string }{
		{"rej", "#!/bin/sh\necho '{\"reject_message\":\"no jobs today\"}'\nexit 1\n", "30", "no jobs today"},
		{"slow", "#!/bin/sh\nsleep 30 &\nsleep 30\n", "1", "alarm call while running queuejob hook 'slow'"},
		{"junk", "#!/bin/sh\necho 'this is not json'\n", "30", "malformed output"},
	} {
		p := c.writeHook(tc.name+".sh", tc.script)
		c.must("qmgr", "-c", "create hook "+tc.name+" event=queuejob,alarm="+tc.alarm)
		c.must("qmgr", "-c", "import hook "+tc.name+" application/x-executable default "+p)
		start := time.Now()
		r := c.runWithInput("true\n", "qsub")
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: %+v", tc.name, r)
		}
		if tc.name == "slow" && time.Since(start) > 10*time.Second {
			t.Errorf("the alarm did not stop the hook: %s", time.Since(start))
		}
		c.must("qmgr", "-c", "delete hook "+tc.name)
	}
}

// TestHookRules checks the provision hook rules and hook errors.
func TestHookRules(t *testing.T) {
	c := startCluster(t, 1, 1)
	c.must("qmgr", "-c", "create hook p1 event=provision")
	r := c.run("qmgr", "-c", "set hook p1 event += execjob_begin")
	if !strings.Contains(r.stderr, "Event provision is exclusive with other events, and only one provision hook allowed") ||
		!strings.Contains(r.stderr, "qmgr: hook error returned from server") {
		t.Errorf("exclusive: %+v", r)
	}
	c.must("qmgr", "-c", "create hook p2")
	r = c.run("qmgr", "-c", "set hook p2 event = provision")
	if !strings.Contains(r.stderr, "Another hook 'p1' already has event 'provision', only one 'provision' hook allowed") {
		t.Errorf("second provision hook: %+v", r)
	}
	c.must("qmgr", "-c", "set hook p2 event = resvsub")
	c.must("qmgr", "-c", "set hook p1 alarm = 1800")
	if out := c.must("qmgr", "-c", "l h p1"); !strings.Contains(out, "alarm = 1800") {
		t.Errorf("alarm: %s", out)
	}
}
