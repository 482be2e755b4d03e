package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

func shellHook(name, body string, alarm int) *model.Hook {
	return &model.Hook{Name: name, Enabled: true, Alarm: alarm, ContentType: model.HookContentExecutable, Script: "#!/bin/sh\n" + body}
}

func testEvent() Event {
	return Event{Type: "queuejob", Requestor: "alice", RequestorHost: "login1",
		Job: &model.Job{ID: "12.srv", Name: "sim", User: "alice", Queue: "workq", ResourceList: map[string]string{"ncpus": "2"}}}
}

func run(t *testing.T, h *model.Hook, ev Event) Outcome {
	t.Helper()
	r := &Runner{Dir: t.TempDir()}
	return r.Run(context.Background(), h, ev, nil)
}

func TestRunAcceptAndChanges(t *testing.T) {
	out := run(t, shellHook("ok", `echo '{"job": {"Resource_List.walltime": "01:00:00"}}'`, 5), testEvent())
	if !out.Accept || out.Failed || out.Exit != 0 || out.Changes["Resource_List.walltime"] != "01:00:00" {
		t.Fatalf("outcome: %+v", out)
	}
	// No output at all is a plain accept.
	if out := run(t, shellHook("quiet", "exit 0\n", 5), testEvent()); !out.Accept || out.Failed || out.Changes != nil {
		t.Errorf("silent hook: %+v", out)
	}
}

func TestRunRejectByExitStatus(t *testing.T) {
	out := run(t, shellHook("no", "echo oops >&2\nexit 3\n", 5), testEvent())
	if out.Accept || out.Failed || out.Exit != 3 {
		t.Fatalf("outcome: %+v", out)
	}
	if out.Message != "queuejob request rejected by 'no'" {
		t.Errorf("default reject message: %q", out.Message)
	}
	if out.Stderr != "oops\n" {
		t.Errorf("stderr: %q", out.Stderr)
	}
	out = run(t, shellHook("msg", `echo '{"reject_message": "walltime required"}'; exit 1`, 5), testEvent())
	if out.Accept || out.Failed || out.Message != "walltime required" {
		t.Errorf("reject with message: %+v", out)
	}
	// "accept" overrides the exit status either way.
	if out := run(t, shellHook("yes", `echo '{"accept": true}'; exit 1`, 5), testEvent()); !out.Accept {
		t.Errorf("accept:true with exit 1: %+v", out)
	}
	if out := run(t, shellHook("nope", `echo '{"accept": false, "reject_message": "m"}'`, 5), testEvent()); out.Accept || out.Message != "m" {
		t.Errorf("accept:false with exit 0: %+v", out)
	}
}

func TestRunMalformedOutput(t *testing.T) {
	for name, body := range map[string]string{
		"text":    "echo 'this is not json'\n",
		"unknown": `echo '{"acept": true}'` + "\n",
		"type":    `echo '{"job": {"Job_Name": 5}}'` + "\n",
		// Found by FuzzParseReply: only the first of two objects was read,
		// and "null" passed as an empty reply.
		"two":  `echo '{"accept": true} {"accept": false}'` + "\n",
		"null": "echo null\n",
	} {
		out := run(t, shellHook(name, body, 5), testEvent())
		want := "hook '" + name + "' rejected the request: malformed output: "
		if out.Accept || !out.Failed || !strings.HasPrefix(out.Message, want) {
			t.Errorf("%s: got %+v, want a failed reject starting %q", name, out, want)
		}
	}
}

func TestRunOutputBound(t *testing.T) {
	// More than MaxOutput bytes on stdout: the hook is cut off and rejected.
	body := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x\n", MaxOutput+1)
	out := run(t, shellHook("chatty", body, 10), testEvent())
	want := fmt.Sprintf("hook 'chatty' rejected the request: malformed output (more than %d bytes)", MaxOutput)
	if out.Accept || !out.Failed || out.Message != want {
		t.Errorf("outcome: %+v", out)
	}
	// Stderr is kept up to the bound without failing the hook.
	body = fmt.Sprintf("head -c %d /dev/zero | tr '\\0' y >&2\n", 3*MaxOutput)
	out = run(t, shellHook("noisy", body, 10), testEvent())
	if !out.Accept || out.Failed || len(out.Stderr) != MaxOutput {
		t.Errorf("stderr bound: accept=%v failed=%v len(stderr)=%d", out.Accept, out.Failed, len(out.Stderr))
	}
}

func TestRunAlarmKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The hook leaves a child behind in its process group and waits.
	h := shellHook("slow", "sleep 60 &\necho $! > "+pidFile+"\nsleep 60\n", 1)
	start := time.Now()
	out := run(t, h, testEvent())
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the alarm did not end the hook: %s", took)
	}
	if out.Accept || !out.Failed || out.Message != "alarm call while running queuejob hook 'slow', request rejected" {
		t.Fatalf("outcome: %+v", out)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// The child was killed with the group: gone, or a zombie waiting for
	// whoever inherited it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(st), ") Z") {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's child %d survived the alarm: %s", pid, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	r := &Runner{Dir: t.TempDir()}
	out := r.Run(ctx, shellHook("long", "sleep 60\n", 30), testEvent(), nil)
	if out.Accept || !out.Failed || !strings.Contains(out.Message, "interrupted") {
		t.Errorf("outcome: %+v", out)
	}
}

func TestRunEnvironmentAndStdin(t *testing.T) {
	dir := t.TempDir()
	envFile, inFile := filepath.Join(dir, "env"), filepath.Join(dir, "stdin")
	h := shellHook("env", "env > "+envFile+"\ncat > "+inFile+"\n", 5)
	r := &Runner{Dir: t.TempDir(), Env: []string{"EXTRA_FROM_RUNNER=1"}}
	if out := r.Run(context.Background(), h, testEvent(), nil); !out.Accept {
		t.Fatalf("outcome: %+v", out)
	}
	env, _ := os.ReadFile(envFile)
	for _, want := range []string{"STRATA_HOOK_EVENT=queuejob", "STRATA_HOOK_NAME=env", "STRATA_HOOK_REQUESTOR=alice", "STRATA_HOOK_REQUESTOR_HOST=login1",
		"STRATA_HOOK_JOBID=12.srv", "STRATA_HOOK_JOBOWNER=alice", "STRATA_HOOK_QUEUE=workq", "EXTRA_FROM_RUNNER=1"} {
		if !strings.Contains(string(env), want+"\n") {
			t.Errorf("environment lacks %s", want)
		}
	}
	if strings.Contains(string(env), "STRATA_HOOK_VNODE=") {
		t.Errorf("a queuejob hook got provision variables")
	}
	var ev map[string]any
	in, _ := os.ReadFile(inFile)
	if err := json.Unmarshal(in, &ev); err != nil {
		t.Fatalf("stdin is not JSON: %v\n%s", err, in)
	}
	job, _ := ev["job"].(map[string]any)
	// The job under its PBS attribute names, as qstat -f -F json shows them.
	rl, _ := job["Resource_List"].(map[string]any)
	if ev["type"] != "queuejob" || ev["hook_name"] != "env" || ev["requestor"] != "alice" || ev["requestor_host"] != "login1" ||
		job["id"] != "12.srv" || job["Job_Name"] != "sim" || job["euser"] != "alice" || job["queue"] != "workq" || rl["ncpus"] != "2" {
		t.Errorf("event on stdin: %s", in)
	}

	// A provision event gets the vnode and the AOE too.
	h = shellHook("prov", "env > "+envFile+"\n", 5)
	if out := r.Run(context.Background(), h, Event{Type: "provision", Vnode: "n3", AOE: "rhel9"}, nil); !out.Accept {
		t.Fatalf("provision outcome: %+v", out)
	}
	env, _ = os.ReadFile(envFile)
	for _, want := range []string{"STRATA_HOOK_EVENT=provision", "STRATA_HOOK_VNODE=n3", "STRATA_HOOK_AOE=rhel9"} {
		if !strings.Contains(string(env), want+"\n") {
			t.Errorf("provision environment lacks %s", want)
		}
	}
}

func TestRunPythonContentType(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	// No #! line and no execute bit needed: application/x-python runs under
	// python3.
	h := &model.Hook{Name: "py", Enabled: true, Alarm: 10, ContentType: model.HookContentPython, Script: `import json, os, sys
ev = json.load(sys.stdin)
print(json.dumps({"job": {"Job_Name": ev["job"]["Job_Name"] + "-" + os.environ["STRATA_HOOK_EVENT"]}}))
`}
	out := run(t, h, testEvent())
	if !out.Accept || out.Failed || out.Changes["Job_Name"] != "sim-queuejob" {
		t.Fatalf("outcome: %+v", out)
	}
	// A Python exception is a non-zero exit: a reject, with the traceback
	// on stderr.
	h.Script = "raise SystemExit('bad input')\n"
	if out := run(t, h, testEvent()); out.Accept || out.Failed || out.Exit != 1 || !strings.Contains(out.Stderr, "bad input") {
		t.Errorf("python failure: %+v", out)
	}
}

func TestRunCannotStart(t *testing.T) {
	h := &model.Hook{Name: "nointerp", Enabled: true, Alarm: 5, ContentType: model.HookContentExecutable, Script: "#!/nonexistent/interpreter\n"}
	out := run(t, h, testEvent())
	if out.Accept || !out.Failed || !strings.HasPrefix(out.Message, "hook 'nointerp': cannot run: ") {
		t.Errorf("outcome: %+v", out)
	}
}

func TestRunConfigPassedThrough(t *testing.T) {
	dir := t.TempDir()
	inFile := filepath.Join(dir, "stdin")
	h := shellHook("cfg", "cat > "+inFile+"\n", 5)
	h.Config = "threshold=4\n"
	if out := run(t, h, testEvent()); !out.Accept {
		t.Fatalf("outcome: %+v", out)
	}
	in, _ := os.ReadFile(inFile)
	var ev Event
	if err := json.Unmarshal(in, &ev); err != nil || ev.Config != "threshold=4\n" {
		t.Errorf("config on stdin: %v %q", err, ev.Config)
	}
}

// A hook run as another user (pbsuser) runs although the daemon's hook
// directory is private to the daemon, and cannot write where its script
// and the module are.
func TestRunAsOtherUserPrivateDir(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a hook as another user")
	}
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Dir: dir}
	body := `echo "{\"reject_message\": \"$(id -u) $(touch "$0" 2>/dev/null && echo writable || echo readonly)\"}"; exit 1` + "\n"
	out := r.Run(context.Background(), shellHook("who", body, 5), testEvent(), &Credential{UID: 65534, GID: 65534})
	if out.Accept || out.Failed || out.Message != "65534 readonly" {
		t.Fatalf("outcome: %+v", out)
	}
}
