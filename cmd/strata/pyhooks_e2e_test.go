//go:build e2e

package main

// End-to-end tests of OpenPBS-style Python hooks (docs/hooks.md, "The pbs
// module"): the example hooks in hooks/examples, imported unchanged with
// qmgr, run by the real server and agents through the pbs module.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needPython3 skips a test of Python hooks where python3 is missing.
func needPython3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: Python hooks cannot run")
	}
}

// exampleHook is the path of a shipped example hook.
func exampleHook(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "hooks", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// waitLog waits until a cluster log file holds every one of wants.
func (c *cluster) waitLog(file string, timeout time.Duration, wants ...string) {
	c.t.Helper()
	waitFor(c.t, timeout, file+" holding "+strings.Join(wants, ", "), func() bool {
		b, _ := os.ReadFile(filepath.Join(c.dir, file))
		for _, w := range wants {
			if !strings.Contains(string(b), w) {
				return false
			}
		}
		return true
	})
}

func TestPythonHooksQueuejob(t *testing.T) {
	needPython3(t)
	c := startCluster(t, 1, 2)
	c.must("qmgr", "-c", "create hook defwall event=queuejob")
	c.must("qmgr", "-c", "import hook defwall application/x-python default "+exampleHook(t, "default_walltime.py"))
	id := c.submit("true\n", "-N", "nowall")
	if rl, _ := c.job(id)["Resource_List"].(map[string]any); rl["walltime"] != "01:00:00" {
		t.Errorf("default walltime: %v", rl)
	}
	id = c.submit("true\n", "-l", "walltime=00:05:00")
	if rl, _ := c.job(id)["Resource_List"].(map[string]any); rl["walltime"] != "00:05:00" {
		t.Errorf("a job's own walltime: %v", rl)
	}
	// pbs.logjobmsg reaches the server log without debug.
	c.waitLog("server1.log", 10*time.Second, "walltime defaulted to 01:00:00")

	// Reject by rule: qsub prints the hook's message as PBS does.
	c.must("qmgr", "-c", "create hook ncpulimit event=queuejob,order=2")
	c.must("qmgr", "-c", "import hook ncpulimit application/x-python default "+exampleHook(t, "queuejob_limit_ncpus.py"))
	r := c.runWithInput("true\n", "qsub", "-P", "climate", "-l", "ncpus=65")
	if r.code == 0 || r.stderr != "qsub: Job STDIN requests 65 cpus; workq allows at most 64\n" {
		t.Errorf("ncpus rule: %+v", r)
	}
	r = c.runWithInput("true\n", "qsub", "-l", "ncpus=1")
	if r.code == 0 || r.stderr != "qsub: Please submit with a project: qsub -P <project>\n" {
		t.Errorf("project rule: %+v", r)
	}
	id = c.submit("true\n", "-P", "climate")
	c.waitState(id, 20*time.Second, "F")

	// modifyjob sees the qalter request as e.job and the job as e.job_o.
	c.must("qmgr", "-c", "create hook capwall event=modifyjob")
	c.must("qmgr", "-c", "import hook capwall application/x-python default "+exampleHook(t, "modifyjob_cap_walltime.py"))
	held := c.submit("true\n", "-h", "-P", "climate", "-l", "walltime=01:00:00")
	r = c.run("qalter", "-l", "walltime=03:00:00", held)
	if r.code == 0 || !strings.HasPrefix(r.stderr, "qalter: walltime 03:00:00 exceeds 02:00:00 (job "+held+" keeps 01:00:00)") {
		t.Errorf("qalter over the cap: %+v", r)
	}
	c.must("qalter", "-l", "walltime=01:30:00", held)
	if rl, _ := c.job(held)["Resource_List"].(map[string]any); rl["walltime"] != "01:30:00" {
		t.Errorf("qalter within the cap: %v", rl)
	}

	// A hook that raises: PBS's message for the user, the traceback in
	// the server log although debug is false.
	boom := c.writeHook("boom.py", "import pbs\ne = pbs.event()\nprint('about to fail')\nraise RuntimeError('site rule table missing')\n")
	c.must("qmgr", "-c", "create hook boom event=queuejob,order=3")
	c.must("qmgr", "-c", "import hook boom application/x-python default "+boom)
	r = c.runWithInput("true\n", "qsub", "-P", "climate")
	if r.code == 0 || r.stderr != "qsub: request rejected as filter hook 'boom' encountered an exception. Please inform Admin\n" {
		t.Errorf("exception: %+v", r)
	}
	c.waitLog("server1.log", 10*time.Second, "queuejob hook 'boom' failed", "Traceback (most recent call last)", "site rule table missing", "about to fail")
}

// Attack: a user's job attributes reach a root hook as data. A Job_Name or
// variable shaped like the hook's answer, printed by the hook, changes
// nothing, and a hook may not set what its event does not allow.
func TestPythonHooksUserDataAndRights(t *testing.T) {
	needPython3(t)
	c := startCluster(t, 1, 2)
	echo := c.writeHook("echo.py", `import pbs
e = pbs.event()
j = e.job
print(j.Account_Name)
print('{"accept": true, "job": {"Priority": "1000"}}')
j.comment = "seen " + j.Account_Name
`)
	c.must("qmgr", "-c", "create hook echo event=queuejob")
	c.must("qmgr", "-c", "import hook echo application/x-python default "+echo)
	evil := `x"} "Priority": "1000" "job_state": "R"} '''`
	r := c.runAs(nobody, "true\n", "qsub", "-h", "-A", evil)
	if r.code != 0 {
		t.Fatalf("qsub: %+v", r)
	}
	j := c.job(strings.TrimSpace(r.stdout))
	if j["comment"] != "seen "+evil || str(j["Priority"]) != "0" {
		t.Errorf("user data changed the answer: comment %q Priority %v", j["comment"], j["Priority"])
	}
	c.must("qmgr", "-c", "delete hook echo")

	// A pbsuser hook runs as the job's owner and reads other jobs through
	// pbs.server().job() with that owner's rights only.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	probe := exec.Command(py, "-c", "pass")
	probe.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	if err := probe.Run(); err != nil {
		t.Skipf("the python3 on PATH (%s) cannot run as nobody (%v): pbsuser hooks not tested", py, err)
	}
	c.must("qmgr", "-c", "set server query_other_jobs = false")
	rootJob := c.submit("true\n", "-h")
	peek := c.writeHook("peek.py", "import os, pbs\nj = pbs.event().job\nj.comment = 'uid %d sees %s' % (os.getuid(), pbs.server().job('"+rootJob+"') is not None)\n")
	c.must("qmgr", "-c", "create hook peek event=queuejob,user=pbsuser")
	c.must("qmgr", "-c", "import hook peek application/x-python default "+peek)
	r = c.runAs(nobody, "true\n", "qsub", "-h")
	if r.code != 0 {
		t.Fatalf("qsub as nobody: %+v", r)
	}
	if got := str(c.job(strings.TrimSpace(r.stdout))["comment"]); got != "uid 65534 sees False" {
		t.Errorf("pbsuser hook of nobody: %q", got)
	}
	if got := str(c.job(c.submit("true\n", "-h"))["comment"]); got != "uid 0 sees True" {
		t.Errorf("pbsuser hook of root: %q", got)
	}
	c.must("qmgr", "-c", "delete hook peek")
	// A shell hook answering with a change its event may not make.
	state := c.writeHook("state.sh", "#!/bin/sh\necho '{\"job\": {\"job_state\": \"R\"}}'\n")
	c.must("qmgr", "-c", "create hook state event=queuejob")
	c.must("qmgr", "-c", "import hook state application/x-executable default "+state)
	if r := c.runWithInput("true\n", "qsub"); r.code == 0 || !strings.Contains(r.stderr, "job_state (not settable by a hook)") {
		t.Errorf("queuejob setting job_state: %+v", r)
	}
}

func TestPythonHooksAgentAndProvision(t *testing.T) {
	needPython3(t)
	c := startCluster(t, 1, 2)
	// execjob_begin on the agent: pbs.logjobmsg lands in the agent's log.
	c.must("qmgr", "-c", "create hook begincheck event=execjob_begin")
	c.must("qmgr", "-c", "import hook begincheck application/x-python default "+exampleHook(t, "execjob_begin_check.py"))
	// An execjob_end hook that raises: the failure and its traceback reach
	// the agent's log although debug is false.
	boom := c.writeHook("endboom.py", "import pbs\nj = pbs.event().job\nprint('ending', j.id)\nx = 1 / 0\n")
	c.must("qmgr", "-c", "create hook endboom event=execjob_end")
	c.must("qmgr", "-c", "import hook endboom application/x-python default "+boom)
	id := c.submit("true\n", "-N", "begun")
	c.waitState(id, 30*time.Second, "F")
	c.waitLog("node1.log", 10*time.Second, "execjob_begin hook 'begincheck' job "+id+": execjob_begin on ", ": job begun of root, vnodes node1",
		"execjob_end hook 'endboom' failed", "ending "+id, "ZeroDivisionError")
	c.must("qmgr", "-c", "delete hook endboom")

	// The provisioning hook, with its commands in its configuration file.
	img := c.writeHook("reimage.sh", "#!/bin/sh\nsleep 1\nprintf '%s\\n' \"$2\" > \"$STRATA_HOOK_AOE_FILE\"\n")
	conf := filepath.Join(c.work, "provision_pbs.json")
	os.WriteFile(conf, []byte(`{"app_command": "`+img+`", "os_command": "`+img+`"}`), 0o644)
	c.must("qmgr", "-c", "create hook prov event=provision,alarm=30")
	c.must("qmgr", "-c", "import hook prov application/x-python default "+exampleHook(t, "provision_pbs.py"))
	c.must("qmgr", "-c", "import hook prov application/x-config default "+conf)
	c.provNode("node1", "app1,os2")
	id = c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app1")
	c.waitState(id, 30*time.Second, "F")
	if got := c.nodeAttr("node1", "current_aoe"); got != "app1" {
		t.Errorf("current_aoe after application provisioning: %q", got)
	}
	// An OS image: accept(0), the agent reboots and comes back with os2.
	id = c.submit("true\n", "-l", "select=1:ncpus=1:aoe=os2")
	c.waitSub(id, "71", 10*time.Second)
	c.waitState(id, 60*time.Second, "F")
	if got := c.nodeAttr("node1", "current_aoe"); got != "os2" {
		t.Errorf("current_aoe after OS provisioning: %q", got)
	}
}
