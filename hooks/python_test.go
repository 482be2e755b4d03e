package hooks

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// The pbs module's tests run hooks through the real runner and python3,
// as the server and agents run them.

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: the pbs module cannot be tested")
	}
}

func pyHook(name, body string) *model.Hook {
	return &model.Hook{Name: name, Enabled: true, Alarm: 10, ContentType: model.HookContentPython, Script: body}
}

func exampleHook(t *testing.T, file string) *model.Hook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("examples", file))
	if err != nil {
		t.Fatal(err)
	}
	return pyHook(strings.TrimSuffix(file, ".py"), string(b))
}

var testDefs = model.ResourceDefs{
	"walltime": {Name: "walltime", Type: model.TypeDuration},
	"ncpus":    {Name: "ncpus", Type: model.TypeLong, Flags: "hn"},
	"mem":      {Name: "mem", Type: model.TypeSize, Flags: "hn"},
	"aoe":      {Name: "aoe", Type: model.TypeString, Flags: "h"},
}

func pyEvent(typ string, rl map[string]string) Event {
	return Event{Type: typ, Requestor: "alice", RequestorHost: "login1", Defs: testDefs,
		Job: &model.Job{ID: "12.srv", Name: "sim", User: "alice", Group: "users", Queue: "workq", State: "Q",
			Project: "_pbs_project_default", ResourceList: rl,
			Env: []model.EnvVar{{Name: "PBS_O_HOME", Value: "/home/alice"}}}}
}

func TestPythonDefaultWalltimeExample(t *testing.T) {
	needPython(t)
	h := exampleHook(t, "default_walltime.py")
	out := run(t, h, pyEvent("queuejob", map[string]string{"ncpus": "2"}))
	if !out.Accept || out.Failed || out.Changes["Resource_List.walltime"] != "01:00:00" || len(out.Changes) != 1 {
		t.Fatalf("outcome: %+v", out)
	}
	if len(out.Log) != 1 || out.Log[0].Msg != "walltime defaulted to 01:00:00" || out.Log[0].Job != "12.srv" {
		t.Errorf("log: %+v", out.Log)
	}
	out = run(t, h, pyEvent("queuejob", map[string]string{"ncpus": "2", "walltime": "00:10:00"}))
	if !out.Accept || len(out.Changes) != 0 {
		t.Errorf("a job with a walltime keeps it: %+v", out)
	}
}

func TestPythonRejectByRuleExample(t *testing.T) {
	needPython(t)
	h := exampleHook(t, "queuejob_limit_ncpus.py")
	out := run(t, h, pyEvent("queuejob", map[string]string{"ncpus": "128"}))
	if out.Accept || out.Failed || out.Message != "Job sim requests 128 cpus; workq allows at most 64" {
		t.Fatalf("outcome: %+v", out)
	}
	out = run(t, h, pyEvent("queuejob", map[string]string{"ncpus": "4"}))
	if out.Accept || out.Message != "Please submit with a project: qsub -P <project>" {
		t.Fatalf("no project: %+v", out)
	}
	ev := pyEvent("queuejob", map[string]string{"ncpus": "4"})
	ev.Job.Project = "climate"
	if out := run(t, h, ev); !out.Accept || out.Failed {
		t.Fatalf("a job within the rules: %+v", out)
	}
}

func TestPythonExecjobBeginExample(t *testing.T) {
	needPython(t)
	ev := pyEvent("execjob_begin", map[string]string{"ncpus": "2"})
	ev.Requestor, ev.Vnodes = "pbs_mom", []string{"n2", "n1"}
	out := run(t, exampleHook(t, "execjob_begin_check.py"), ev)
	if !out.Accept || out.Failed || len(out.Log) != 1 {
		t.Fatalf("outcome: %+v", out)
	}
	host, _ := os.Hostname()
	host, _, _ = strings.Cut(host, ".")
	if want := "execjob_begin on " + host + ": job sim of alice, vnodes n1,n2"; out.Log[0].Msg != want || out.Log[0].Job != "12.srv" {
		t.Errorf("log %+v, want %q", out.Log, want)
	}
}

func TestPythonProvisionExample(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "aoe")
	cmd := filepath.Join(dir, "image.sh")
	if err := os.WriteFile(cmd, []byte("#!/bin/sh\n[ \"$2\" = broken ] && exit 4\necho \"$2\" > "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := exampleHook(t, "provision_pbs.py")
	h.Config = `{"app_command": "` + cmd + `", "os_command": "` + cmd + `"}`
	for _, tc := range []struct {
		aoe  string
		exit int
	}{{"app_py", 1}, {"rhel9", 0}, {"broken", 210}} {
		ev := Event{Type: "provision", Requestor: "Server", Vnode: "n1", Vnodes: []string{"n1"}, AOE: tc.aoe}
		out := run(t, h, ev)
		kind, exit := ProvisionOutcome(out)
		if kind != ProvExited || exit != tc.exit {
			t.Errorf("%s: kind %q exit %d, want exit %d (%+v)", tc.aoe, kind, exit, tc.exit, out)
		}
		if tc.exit != 210 {
			if b, _ := os.ReadFile(marker); strings.TrimSpace(string(b)) != tc.aoe {
				t.Errorf("%s: marker %q", tc.aoe, b)
			}
		}
	}
}

func TestPythonExceptionIsFailure(t *testing.T) {
	needPython(t)
	const want = "request rejected as filter hook 'boom' encountered an exception. Please inform Admin"
	for name, body := range map[string]string{
		"module":    "import pbs\ne = pbs.event()\nx = e.job.Resource_List['ncpus'] / 0\n",
		"no module": "import json, sys\njson.load(sys.stdin)['no such key']\n",
	} {
		out := run(t, pyHook("boom", body), pyEvent("queuejob", map[string]string{"ncpus": "2"}))
		if out.Accept || !out.Failed || out.Message != want {
			t.Errorf("%s: %+v", name, out)
		}
		if !strings.Contains(out.Stderr, pythonTraceback) {
			t.Errorf("%s: stderr without the traceback: %q", name, out.Stderr)
		}
		if line := out.LogLine("queuejob"); !out.ShouldLog(false) || !strings.Contains(line, "Traceback") {
			t.Errorf("%s: a failure is logged with its stderr without debug: %q", name, line)
		}
	}
}

// A hook that catches the SystemExit of reject() still rejects, as in PBS;
// a hook that ends without accept or reject accepts.
func TestPythonSystemExit(t *testing.T) {
	needPython(t)
	body := "import pbs\ne = pbs.event()\ntry:\n    e.reject('no night jobs')\nexcept SystemExit:\n    pass\nprint('after')\n"
	out := run(t, pyHook("caught", body), pyEvent("queuejob", nil))
	if out.Accept || out.Failed || out.Message != "no night jobs" || !strings.Contains(out.Stderr, "after") {
		t.Errorf("caught reject: %+v", out)
	}
	out = run(t, pyHook("plain", "import pbs\npbs.event()\n"), pyEvent("modifyjob", nil))
	if !out.Accept || out.Failed {
		t.Errorf("fall-through: %+v", out)
	}
	out = run(t, pyHook("nomsg", "import pbs\npbs.event().reject()\n"), pyEvent("movejob", nil))
	if out.Accept || out.Message != "movejob request rejected by 'nomsg'" {
		t.Errorf("reject without message: %+v", out)
	}
}

// Attack: user-controlled attributes (Job_Name, Variable_List) that look
// like the hook's answer, printed by the hook, reach nothing but the hook's
// stderr; they arrive in the hook byte for byte and go back the same way.
func TestPythonUserDataCannotForgeTheAnswer(t *testing.T) {
	needPython(t)
	evil := "x\"}\n{\"accept\": true, \"job\": {\"Priority\": \"1000\"}}\n'''\\"
	ev := pyEvent("queuejob", map[string]string{"ncpus": "1"})
	ev.Job.Name = evil
	ev.Job.Env = append(ev.Job.Env, model.EnvVar{Name: "EVIL", Value: evil})
	body := `import pbs, os
e = pbs.event()
j = e.job
print(j.Job_Name)
os.system("echo '{\"accept\": true}'")
j.comment = j.Variable_List["EVIL"]
e.reject(j.Job_Name)
`
	out := run(t, pyHook("echo", body), ev)
	if out.Accept || out.Failed || out.Message != evil {
		t.Fatalf("outcome: %+v", out)
	}
	if out.Changes != nil {
		t.Errorf("a rejecting hook's changes are not sent: %v", out.Changes)
	}
	body = "import pbs\nj = pbs.event().job\nj.comment = j.Job_Name\nj.Variable_List['COPY'] = j.Variable_List['EVIL']\n"
	out = run(t, pyHook("copy", body), ev)
	if !out.Accept || out.Changes["comment"] != evil || out.Changes["Variable_List.COPY"] != evil || len(out.Changes) != 2 {
		t.Fatalf("changes: %+v", out)
	}
}

// A hook may set only what its event allows: queuejob sets Resource_List
// but not job_state; other events change nothing.
func TestPythonSettableAttributes(t *testing.T) {
	needPython(t)
	try := func(typ, stmt string) Outcome {
		body := "import pbs\ne = pbs.event()\nj = e.job\ntry:\n    " + stmt + "\nexcept (pbs.BadAttributeValueError, pbs.BadAttributeValueTypeError, pbs.BadResourceValueError) as x:\n    e.reject(str(x))\n"
		return run(t, pyHook("set", body), pyEvent(typ, map[string]string{"ncpus": "1"}))
	}
	if out := try("queuejob", "j.job_state = pbs.JOB_STATE_RUNNING"); out.Accept || out.Message != "job_state: attribute cannot be set in a queuejob event" {
		t.Errorf("job_state: %+v", out)
	}
	if out := try("runjob", "j.Resource_List['walltime'] = pbs.duration(60)"); out.Accept || out.Message != "Resource_List.walltime: attribute cannot be set in a runjob event" {
		t.Errorf("runjob Resource_List: %+v", out)
	}
	if out := try("queuejob", "j.Resource_List['mem'] = 'lots'"); out.Accept || out.Message != "bad size value 'lots'" {
		t.Errorf("bad size: %+v", out)
	}
	out := try("queuejob", "j.Resource_List['mem'] = pbs.size('2gb'); j.Priority = 10; j.Hold_Types = pbs.hold_types('u'); j.Rerunable = False")
	want := map[string]string{"Resource_List.mem": "2gb", "Priority": "10", "Hold_Types": "u", "Rerunable": "False"}
	if !out.Accept || len(out.Changes) != len(want) {
		t.Fatalf("queuejob changes: %+v", out)
	}
	for k, v := range want {
		if out.Changes[k] != v {
			t.Errorf("%s = %q, want %q", k, out.Changes[k], v)
		}
	}
}

// The event's values have PBS's types in Python, and pbs.server() reads
// the copy the event carries.
func TestPythonTypesAndServer(t *testing.T) {
	needPython(t)
	ev := pyEvent("runjob", map[string]string{"ncpus": "4", "walltime": "01:30:00", "mem": "2097152kb", "select": "1:ncpus=4"})
	ev.Job.Ctime, ev.Job.Priority, ev.Job.Comment = 1700000000, 5, "queued"
	ev.Vnodes = []string{"n1"}
	cfg := &model.ServerConfig{Name: "srv", Defs: testDefs, Queues: map[string]model.QueueConfig{"workq": {Type: "execution", Enabled: true, Started: true}}}
	ev.Server = NewServerView(cfg, []*model.Vnode{{Name: "n1", Host: "h1", Available: map[string]string{"ncpus": "8", "aoe": "rhel9"}, CurrentAOE: "rhel9", Assigned: map[string]float64{"ncpus": 4}},
		{Name: "n2", State: model.NodeOffline | model.NodeProvisioning}})
	body := `import pbs
e = pbs.event()
j = e.job
rl = j.Resource_List
checks = [
    e.type == pbs.RUNJOB, e.requestor == "alice", e.requestor_host == "login1", e.hook_name == "types",
    isinstance(rl["walltime"], pbs.duration), rl["walltime"] == 5400, str(rl["walltime"]) == "01:30:00",
    rl["walltime"] > pbs.duration("1:00:00"),
    isinstance(rl["mem"], pbs.size), rl["mem"] == pbs.size("2gb"), rl["mem"] > pbs.size("1gb"),
    rl["ncpus"] == 4, isinstance(rl["select"], pbs.select), rl["nosuch"] is None,
    j.id == "12.srv", j.queue.name == "workq", j.job_state == pbs.JOB_STATE_QUEUED,
    j.euser == "alice", j.egroup == "users", j.Priority == 5, j.ctime == 1700000000,
    j.comment == "queued", j.Variable_List["PBS_O_HOME"] == "/home/alice", j.Account_Name is None,
    pbs.server().name == "srv", pbs.server().queue("workq").enabled,
    pbs.server().vnode("n1").resources_available["ncpus"] == 8,
    pbs.server().vnode("n1").resources_assigned["ncpus"] == 4,
    pbs.server().vnode("n1").current_aoe == "rhel9", pbs.server().vnode("n1").state == pbs.ND_STATE_FREE,
    pbs.server().vnode("n2").state & pbs.ND_OFFLINE and pbs.server().vnode("n2").state & pbs.ND_STATE_PROV, pbs.server().job("12.srv").Job_Name == "sim",
    pbs.server().job("13.srv") is None, e.vnode_list["n1"].resources_available["aoe"] == "rhel9",
    pbs.duration(90) + 30 == 120, str(pbs.size("1024kb") + pbs.size("1mb")) == "2048kb",
    pbs.LOG_DEBUG == 5, pbs.EVENT_DEBUG == 0x80, pbs.EXECJOB_BEGIN == 0x40, pbs.hook_config_filename is None,
]
bad = [i for i, ok in enumerate(checks) if not ok]
if bad:
    e.reject("failed checks %s" % bad)
`
	out := run(t, pyHook("types", body), ev)
	if !out.Accept || out.Failed {
		t.Fatalf("outcome: %+v", out)
	}
}

// The module is written next to the hook scripts with the runner's
// rights; PYTHONPATH from the daemon's environment cannot replace it.
func TestPythonModuleCannotBeShadowed(t *testing.T) {
	needPython(t)
	evil := t.TempDir()
	if err := os.MkdirAll(filepath.Join(evil, "pbs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(evil, "pbs", "__init__.py"), []byte("raise SystemExit(7)\n"), 0o644)
	t.Setenv("PYTHONPATH", evil)
	r := &Runner{Dir: t.TempDir()}
	// The script's directory is not on sys.path either (Python 3.11+):
	// a json.py next to the hook scripts does not replace the standard one.
	if exec.Command("python3", "-c", "import sys; sys.exit(sys.version_info < (3, 11))").Run() == nil {
		os.WriteFile(filepath.Join(r.Dir, "json.py"), []byte("raise SystemExit(9)\n"), 0o644)
	}
	out := r.Run(context.Background(), pyHook("ok", "import pbs\npbs.event().accept()\n"), pyEvent("queuejob", nil), nil)
	if !out.Accept || out.Exit != 0 {
		t.Fatalf("outcome: %+v", out)
	}
	fi, err := os.Stat(filepath.Join(r.Dir, moduleDir, "pbs", "__init__.py"))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("module file: %v %v", fi, err)
	}
}

// modifyjob: the event's job is the qalter request, job_o the job.
func TestPythonModifyjobExample(t *testing.T) {
	needPython(t)
	h := exampleHook(t, "modifyjob_cap_walltime.py")
	ev := pyEvent("modifyjob", map[string]string{"walltime": "01:00:00"})
	ev.Request = map[string]any{"id": "12.srv", "Resource_List": map[string]string{"walltime": "03:00:00"}}
	out := run(t, h, ev)
	if out.Accept || out.Message != "walltime 03:00:00 exceeds 02:00:00 (job 12.srv keeps 01:00:00)" {
		t.Fatalf("over the cap: %+v", out)
	}
	ev.Request = map[string]any{"id": "12.srv", "Job_Name": "renamed"}
	if out := run(t, h, ev); !out.Accept || out.Failed {
		t.Fatalf("an alter without walltime: %+v", out)
	}
	body := "import pbs\ne = pbs.event()\ne.job.Resource_List['walltime'] = pbs.duration(60)\ne.job.Job_Name = e.job_o.Job_Name + '2'\n"
	out = run(t, pyHook("edit", body), ev)
	if !out.Accept || out.Changes["Resource_List.walltime"] != "00:01:00" || out.Changes["Job_Name"] != "sim2" {
		t.Fatalf("modifyjob changes: %+v", out)
	}
}

// pbs.server().job(id) asks the daemon through the query channel, which
// answers with the hook's identity.
func TestPythonServerJobQuery(t *testing.T) {
	needPython(t)
	var asked []string
	r := &Runner{Dir: t.TempDir(), Lookup: func(kind, name string, cred *Credential) (any, bool) {
		asked = append(asked, kind+":"+name)
		if kind == "job" && name == "7.srv" && cred == nil {
			return JobAttrs(&model.Job{ID: "7.srv", Name: "other", ResourceList: map[string]string{"walltime": "00:01:00"}}, testDefs), true
		}
		return nil, false
	}}
	body := `import os, pbs
e = pbs.event()
o = pbs.server().job("7.srv")
if o is None or o.Job_Name != "other" or o.Resource_List["walltime"] != 60:
    e.reject("7.srv: %r" % (o,))
if pbs.server().job("8.srv") is not None or pbs.server().job("x\n{}") is not None:
    e.reject("unknown jobs")
if pbs.server().job("12.srv").Job_Name != "sim":
    e.reject("the event's own job")
# The channel is not inherited by the hook's commands.
leaked = [d for d in (3, 4) if os.system("python3 -c \"import os, sys; sys.exit(os.path.exists('/proc/self/fd/%d') and os.readlink('/proc/self/fd/%d').startswith('pipe:'))\"" % (d, d)) != 0]
if leaked:
    e.reject("query channel inherited: %s" % leaked)
try:
    o.Job_Name = "x"
    e.reject("another job is writable")
except pbs.BadAttributeValueError:
    pass
`
	out := r.Run(context.Background(), pyHook("query", body), pyEvent("queuejob", nil), nil)
	if !out.Accept || out.Failed {
		t.Fatalf("outcome: %+v", out)
	}
	if len(asked) != 3 || asked[0] != "job:7.srv" || asked[2] != "job:x\n{}" {
		t.Errorf("queries: %q", asked)
	}
}

// A hook that leaves a child holding the query channel open (and nothing
// else: a child holding stdout keeps any hook's run until its alarm) does
// not keep the run waiting.
func TestPythonQueryChannelEndsWithHook(t *testing.T) {
	needPython(t)
	r := &Runner{Dir: t.TempDir(), Lookup: func(string, string, *Credential) (any, bool) { return nil, false }}
	body := "import os, pbs, time\nif os.fork() == 0:\n    os.closerange(0, 3)\n    os.closerange(5, 1024)\n    time.sleep(20)\n    os._exit(0)\npbs.event().reject('done')\n"
	start := time.Now()
	out := r.Run(context.Background(), pyHook("fork", body), pyEvent("queuejob", nil), nil)
	if out.Accept || out.Message != "done" || time.Since(start) > 10*time.Second {
		t.Fatalf("outcome after %s: %+v", time.Since(start), out)
	}
}

// Vnodes are not carried in server events: the module asks for them when
// the hook reads one.
func TestPythonVnodesOnDemand(t *testing.T) {
	needPython(t)
	defs := testDefs
	n1 := NewVnodeView(&model.Vnode{Name: "n1", State: model.NodeOffline, Available: map[string]string{"ncpus": "8"}, Assigned: map[string]float64{"ncpus": 2}}, defs)
	var asked []string
	r := &Runner{Dir: t.TempDir(), Lookup: func(kind, name string, cred *Credential) (any, bool) {
		asked = append(asked, kind+":"+name)
		switch {
		case kind == "vnode" && name == "n1":
			return n1, true
		case kind == "vnodes":
			return map[string]VnodeView{"n1": n1, "n2": {State: "free"}}, true
		}
		return nil, false
	}}
	ev := pyEvent("runjob", map[string]string{"ncpus": "2"})
	ev.Vnodes = []string{"n1"}
	ev.Server = NewServerView(&model.ServerConfig{Name: "srv", Defs: defs}, nil)
	body := `import pbs
e = pbs.event()
v = e.vnode_list["n1"]
checks = [v.name == "n1", v.resources_available["ncpus"] == 8, v.resources_assigned["ncpus"] == 2,
          v.state & pbs.ND_OFFLINE, pbs.server().vnode("n1").resources_available["ncpus"] == 8,
          pbs.server().vnode("n9") is None, [x.name for x in pbs.server().vnodes()] == ["n1", "n2"]]
bad = [i for i, ok in enumerate(checks) if not ok]
if bad:
    e.reject("failed checks %s" % bad)
`
	out := r.Run(context.Background(), pyHook("vn", body), ev, nil)
	if !out.Accept || out.Failed {
		t.Fatalf("outcome: %+v", out)
	}
	if strings.Join(asked, " ") != "vnode:n1 vnode:n1 vnode:n9 vnodes:" {
		t.Errorf("queries: %q", asked)
	}
	b, _ := json.Marshal(ev)
	if strings.Contains(string(b), `"vnodes"`) {
		t.Errorf("the event carries vnodes: %s", b)
	}
}

// A chatty hook (logging, a long reject message, non-ASCII text) stays
// within what the runner reads: its answer is never "malformed".
func TestPythonAnswerBounded(t *testing.T) {
	needPython(t)
	body := "import pbs\nfor i in range(10000):\n    pbs.logmsg(pbs.LOG_DEBUG, '\\u00e9\\u00e8\\x01' * 50)\npbs.event().reject('\\u00e9' * 100000)\n"
	out := run(t, pyHook("chatty", body), pyEvent("queuejob", nil))
	if out.Accept || out.Failed || len([]rune(out.Message)) != 4000 {
		t.Fatalf("outcome: failed=%v accept=%v message %d runes, %s", out.Failed, out.Accept, len([]rune(out.Message)), out.Stderr)
	}
	if n := len(out.Log); n < 10 || out.Log[n-1].Msg != "(further log messages dropped)" {
		t.Errorf("log: %d lines, last %+v", n, out.Log[n-1])
	}
}
