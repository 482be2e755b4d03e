//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHooksModifyMoveJob runs real modifyjob and movejob hooks (a shell
// hook and a python3 hook) through qalter and qmove: an accepted request
// goes through, a rejected one fails with the hook's message and changes
// nothing.
func TestHooksModifyMoveJob(t *testing.T) {
	c := newCluster(t, 1, 1, `
[[queue]]
name = "workq"
enabled = true
started = true

[[queue]]
name = "vault"
enabled = true
started = true

[[queue]]
name = "spare"
enabled = true
started = true
`)
	// modifyjob: a shell hook with no JSON parser; jobs named "frozen"
	// may not be altered.
	sh := c.writeHook("modify.sh", `#!/bin/sh
[ "$STRATA_HOOK_EVENT" = modifyjob ] || { echo '{"reject_message":"wrong event"}'; exit 1; }
if grep -q '"Job_Name":"frozen"'; then
  echo "{\"reject_message\":\"job $STRATA_HOOK_JOBID is frozen\"}"
  exit 1
fi
exit 0
`)
	c.must("qmgr", "-c", "create hook nomod event=modifyjob")
	c.must("qmgr", "-c", "import hook nomod application/x-executable default "+sh)

	frozen := strings.TrimSpace(c.must("qsub", "-h", "-N", "frozen", "--", "/bin/true"))
	thawed := strings.TrimSpace(c.must("qsub", "-h", "-N", "thawed", "--", "/bin/true"))
	r := c.run("qalter", "-N", "renamed", frozen)
	if r.code == 0 || r.stdout != "" || !strings.Contains(r.stderr, "job "+frozen+" is frozen") {
		t.Errorf("qalter of a frozen job: %+v", r)
	}
	if r.code != 62 {
		t.Errorf("qalter rejected by a hook: exit %d, want 62 (PBSE_HOOKERROR 15166 mod 256)", r.code)
	}
	if j := c.job(frozen); j["Job_Name"] != "frozen" {
		t.Errorf("a rejected qalter changed the job: Job_Name=%v", j["Job_Name"])
	}
	if r := c.run("qalter", "-N", "renamed", thawed); r.code != 0 || r.stderr != "" {
		t.Errorf("qalter accepted by the hook: %+v", r)
	}
	if j := c.job(thawed); j["Job_Name"] != "renamed" {
		t.Errorf("an accepted qalter did not apply: Job_Name=%v", j["Job_Name"])
	}

	// movejob: a python3 hook sees the destination queue in the job and
	// the queue it leaves as src_queue; nothing may move into vault.
	py := c.writeHook("move.py", `import json, os, sys
ev = json.load(sys.stdin)
if ev["type"] != "movejob" or ev["src_queue"] != os.environ["STRATA_HOOK_SRC_QUEUE"]:
    print(json.dumps({"reject_message": "bad event: " + json.dumps(ev)}))
    sys.exit(1)
if ev["job"]["queue"] == "vault":
    print(json.dumps({"reject_message": "nothing moves from %s into vault" % ev["src_queue"]}))
    sys.exit(1)
`)
	c.must("qmgr", "-c", "create hook nomove event=movejob")
	c.must("qmgr", "-c", "import hook nomove application/x-python default "+py)
	r = c.run("qmove", "vault", thawed)
	if r.code != 62 || r.stdout != "" || !strings.Contains(r.stderr, "nothing moves from workq into vault") {
		t.Errorf("qmove into vault: %+v", r)
	}
	if j := c.job(thawed); j["queue"] != "workq" {
		t.Errorf("a rejected qmove moved the job: queue=%v", j["queue"])
	}
	if r := c.run("qmove", "spare", thawed); r.code != 0 || r.stderr != "" {
		t.Errorf("qmove accepted by the hook: %+v", r)
	}
	if j := c.job(thawed); j["queue"] != "spare" {
		t.Errorf("an accepted qmove did not apply: queue=%v", j["queue"])
	}

	// A disabled hook is not run.
	c.must("qmgr", "-c", "set hook nomove enabled=false")
	if r := c.run("qmove", "vault", thawed); r.code != 0 || r.stderr != "" {
		t.Errorf("qmove with the hook disabled: %+v", r)
	}

	// A modifyjob hook that outlives its alarm rejects the request; one
	// that answers junk rejects it with a clear message.
	c.must("qmgr", "-c", "delete hook nomod")
	for _, tc := range []struct{ name, script, alarm, want string }{
		{"slowmod", "#!/bin/sh\nsleep 30 &\nsleep 30\n", "1", "alarm call while running modifyjob hook 'slowmod', request rejected"},
		{"junkmod", "#!/bin/sh\necho 'not json'\n", "30", "hook 'junkmod' rejected the request: malformed output"},
	} {
		p := c.writeHook(tc.name+".sh", tc.script)
		c.must("qmgr", "-c", "create hook "+tc.name+" event=modifyjob,alarm="+tc.alarm)
		c.must("qmgr", "-c", "import hook "+tc.name+" application/x-executable default "+p)
		start := time.Now()
		r := c.run("qalter", "-p", "5", thawed)
		if r.code != 62 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: %+v", tc.name, r)
		}
		if time.Since(start) > 15*time.Second {
			t.Errorf("%s: the alarm did not stop the hook (%s)", tc.name, time.Since(start))
		}
		c.must("qmgr", "-c", "delete hook "+tc.name)
	}
	if j := c.job(thawed); str(j["Priority"]) == "5" {
		t.Errorf("rejected qalters changed the priority")
	}
}

// TestHooksPeriodic runs a periodic hook with freq=1: it runs on the
// leader again and again, with the periodic event in its environment and
// on stdin, and stops when it is disabled.
func TestHooksPeriodic(t *testing.T) {
	c := startCluster(t, 1, 1)
	log := filepath.Join(c.work, "periodic.log")
	sh := c.writeHook("tick.sh", "#!/bin/sh\nread -r ev\ncase \"$ev\" in *'\"type\":\"periodic\"'*) echo \"$STRATA_HOOK_EVENT $STRATA_HOOK_NAME\" >> "+log+";; esac\n")
	c.must("qmgr", "-c", "create hook tick event=periodic,freq=1")
	c.must("qmgr", "-c", "import hook tick application/x-executable default "+sh)
	if out := c.must("qmgr", "-c", "list hook tick"); !strings.Contains(out, "    freq = 1\n") || !strings.Contains(out, "    event = periodic\n") {
		t.Errorf("list hook: %s", out)
	}
	lines := func() []string {
		b, _ := os.ReadFile(log)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	waitFor(t, 20*time.Second, "the periodic hook to run three times", func() bool { return len(lines()) >= 3 })
	for _, l := range lines() {
		if l != "periodic tick" {
			t.Errorf("periodic hook saw %q, want \"periodic tick\"", l)
		}
	}
	// After it is disabled, at most a run already started may still land.
	c.must("qmgr", "-c", "set hook tick enabled=false")
	n := len(lines())
	c.must("qmgr", "-c", "create hook gate event=periodic,freq=1")
	gate := filepath.Join(c.work, "gate.log")
	gsh := c.writeHook("gate.sh", "#!/bin/sh\necho run >> "+gate+"\n")
	c.must("qmgr", "-c", "import hook gate application/x-executable default "+gsh)
	// Two runs of another periodic hook prove the loop kept going.
	waitFor(t, 20*time.Second, "another periodic hook to run twice", func() bool {
		b, _ := os.ReadFile(gate)
		return strings.Count(string(b), "run\n") >= 2
	})
	if got := len(lines()); got > n+1 {
		t.Errorf("the disabled periodic hook kept running: %d runs before, %d after", n, got)
	}
}
