package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
)

// MaxOutput bounds what is kept of a hook's stdout and stderr each.
const MaxOutput = 64 << 10

// Reply is the optional JSON a hook writes on stdout.
type Reply struct {
	// Accept overrides the exit status when present.
	Accept *bool `json:"accept,omitempty"`
	// RejectMessage is shown to the requestor when the hook rejects.
	RejectMessage string `json:"reject_message,omitempty"`
	// Job holds attribute changes: "Resource_List.walltime", "Job_Name",
	// "Priority", "comment", "Account_Name", "project", "Variable_List.X"...
	Job map[string]string `json:"job,omitempty"`
	// Resv holds a resvsub or modifyresv hook's reservation changes
	// ("Reserve_Name", "reserve_end", "Resource_List.select"...).
	Resv map[string]string `json:"resv,omitempty"`
	// Log holds pbs.logmsg and pbs.logjobmsg lines, logged by the caller
	// whatever the hook's debug says.
	Log []LogEntry `json:"log,omitempty"`
	// HookError is set by the pbs module when the hook raised an exception:
	// the run failed (fail_action applies) and HookError is the message
	// the requestor sees.
	HookError string `json:"hook_error,omitempty"`
}

// LogEntry is one line a hook asked to have logged.
type LogEntry struct {
	Level int    `json:"level,omitempty"`
	Job   string `json:"job,omitempty"` // pbs.logjobmsg's job id
	Msg   string `json:"msg"`
}

// Outcome is how one hook run ended.
type Outcome struct {
	Hook    string
	Accept  bool
	Message string // reject message (from the hook or describing a failure)
	Changes map[string]string
	Log     []LogEntry
	// Failed means the hook did not run to a proper answer (could not start,
	// alarm, malformed output): fail_action applies.
	Failed bool
	Exit   int
	Stderr string
}

// Runner executes hooks. Dir holds the script files it writes.
type Runner struct {
	Dir string
	// Python is the interpreter of application/x-python hooks.
	Python string
	// Env is added to the hook's environment (an agent's provision hook
	// gets STRATA_HOOK_AOE_FILE).
	Env []string
	// Lookup, when set, answers a Python hook's queries (query.go).
	Lookup Lookup
}

// pythonTraceback starts what Python writes on stderr for an uncaught
// exception: such a run failed, it did not merely reject.
const pythonTraceback = "Traceback (most recent call last):"

// Credential is who a hook runs as; nil keeps the caller's identity.
type Credential struct {
	UID, GID uint32
}

// Run executes h for ev. The script gets the event as JSON on stdin and the
// simple fields as STRATA_HOOK_* variables; it runs in its own process
// group, which is killed when the alarm expires.
func (r *Runner) Run(ctx context.Context, h *model.Hook, ev Event, cred *Credential) Outcome {
	out := Outcome{Hook: h.Name}
	fail := func(format string, args ...any) Outcome {
		out.Accept, out.Failed, out.Changes = false, true, nil
		out.Message = fmt.Sprintf(format, args...)
		return out
	}
	dir := r.Dir
	if cred != nil && os.Geteuid() == 0 {
		// The hook runs as another user, who may not reach the daemon's
		// directory: its script and module go to a directory of its own
		// for this run, root's and readable (not writable) by that user.
		d, err := os.MkdirTemp("", "strata-hook-")
		if err != nil {
			return fail("hook '%s': cannot prepare a directory: %v", h.Name, err)
		}
		defer os.RemoveAll(d)
		if err := os.Chmod(d, 0o755); err != nil {
			return fail("hook '%s': cannot prepare a directory: %v", h.Name, err)
		}
		dir = d
	}
	path, err := writeScript(dir, h)
	if err != nil {
		return fail("hook '%s': cannot prepare script: %v", h.Name, err)
	}
	defer os.Remove(path)
	ev.Hook = h.Name
	ev.Config = h.Config
	input, err := json.Marshal(ev)
	if err != nil {
		return fail("hook '%s': cannot encode event: %v", h.Name, err)
	}
	alarm := time.Duration(h.Alarm) * time.Second
	if alarm <= 0 {
		alarm = 30 * time.Second
	}
	env := append(os.Environ(), hookEnv(ev)...)
	var cmd *exec.Cmd
	python := h.ContentType == model.HookContentPython
	if python {
		lib, err := writeModule(dir)
		if err != nil {
			return fail("hook '%s': cannot prepare the pbs module: %v", h.Name, err)
		}
		py := r.Python
		if py == "" {
			py = "python3"
		}
		// -s: no user site-packages (a pbsuser hook runs as the job owner,
		// whose ~/.local must not shadow the module); the inherited
		// PYTHON* variables are dropped for the same reason, and
		// PYTHONSAFEPATH (Python 3.11+) keeps the script's directory off
		// sys.path, so only the module directory and the standard library
		// answer an import.
		cmd = exec.Command(py, "-s", path)
		env = append(withoutPython(env), "PYTHONPATH="+lib, "PYTHONDONTWRITEBYTECODE=1", "PYTHONSAFEPATH=1")
	} else {
		cmd = exec.Command(path)
	}
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	stdout, stderr := &boundedBuffer{max: MaxOutput}, &boundedBuffer{max: MaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(env, r.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cred != nil && os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: cred.UID, Gid: cred.GID}
	}
	var queries *queryPipes
	if python && r.Lookup != nil {
		if queries, err = newQueryPipes(); err != nil {
			return fail("hook '%s': cannot prepare queries: %v", h.Name, err)
		}
		cmd.ExtraFiles = queries.child()
		cmd.Env = append(cmd.Env, queryEnv)
	}
	if err := cmd.Start(); err != nil {
		queries.close()
		return fail("hook '%s': cannot run: %v", h.Name, err)
	}
	if queries != nil {
		queries.serve(r.Lookup, cred)
	}
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		// A forked child of the hook may hold the channel open; the hook
		// is over, so is the channel.
		queries.close()
		done <- err
	}()
	timer := time.NewTimer(alarm)
	defer timer.Stop()
	var werr error
	select {
	case werr = <-done:
	case <-timer.C:
		// The whole group: a hook's children must not outlive it.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		out.Stderr = stderr.String()
		return fail("alarm call while running %s hook '%s', request rejected", ev.Type, h.Name)
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return fail("hook '%s' interrupted: %v", h.Name, ctx.Err())
	}
	out.Stderr = stderr.String()
	out.Exit = 0
	if werr != nil {
		if ee, ok := werr.(*exec.ExitError); ok {
			out.Exit = ee.ExitCode()
		} else {
			return fail("hook '%s': %v", h.Name, werr)
		}
	}
	out.Accept = out.Exit == 0
	if stdout.truncated {
		return fail("hook '%s' rejected the request: malformed output (more than %d bytes)", h.Name, MaxOutput)
	}
	if rep, err := ParseReply(stdout.String()); err != nil {
		return fail("hook '%s' rejected the request: malformed output: %v", h.Name, err)
	} else if rep == nil && python && out.Exit != 0 && strings.Contains(out.Stderr, pythonTraceback) {
		// A Python hook that does not use the pbs module and died on an
		// exception: PBS's wording, and a failure.
		return fail("request rejected as filter hook '%s' encountered an exception. Please inform Admin", h.Name)
	} else if rep != nil {
		if rep.Accept != nil {
			out.Accept = *rep.Accept
		}
		out.Message = rep.RejectMessage
		out.Changes = rep.Job
		if len(rep.Resv) > 0 {
			out.Changes = rep.Resv
		}
		out.Log = rep.Log
		if rep.HookError != "" {
			return fail("%s", rep.HookError)
		}
	}
	if !out.Accept && out.Message == "" {
		// PBS's words for a rejection without a message.
		out.Message = fmt.Sprintf("%s request rejected by '%s'", ev.Type, h.Name)
	}
	return out
}

// ParseReply reads what a hook wrote on stdout: nothing (nil, nil) or
// exactly one Reply object with no unknown fields. Anything else, such as
// "null" or text after the object (which could hold a second, contrary
// answer), is malformed.
func ParseReply(stdout string) (*Reply, error) {
	text := strings.TrimSpace(stdout)
	if text == "" {
		return nil, nil
	}
	if text[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var rep Reply
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return nil, err
	}
	if dec.InputOffset() != int64(len(text)) {
		return nil, fmt.Errorf("text after the JSON object")
	}
	return &rep, nil
}

func hookEnv(ev Event) []string {
	env := []string{"STRATA_HOOK_EVENT=" + ev.Type, "STRATA_HOOK_NAME=" + ev.Hook, "STRATA_HOOK_REQUESTOR=" + ev.Requestor, "STRATA_HOOK_REQUESTOR_HOST=" + ev.RequestorHost}
	if ev.Job != nil {
		env = append(env, "STRATA_HOOK_JOBID="+ev.Job.ID, "STRATA_HOOK_JOBOWNER="+ev.Job.User, "STRATA_HOOK_QUEUE="+ev.Job.Queue)
	}
	if id, ok := ev.Resv["resvid"].(string); ok {
		env = append(env, "STRATA_HOOK_RESVID="+id)
	}
	if ev.SrcQueue != "" {
		env = append(env, "STRATA_HOOK_SRC_QUEUE="+ev.SrcQueue)
	}
	if ev.Type == "provision" {
		env = append(env, "STRATA_HOOK_VNODE="+ev.Vnode, "STRATA_HOOK_AOE="+ev.AOE)
	}
	return env
}

// writeScript writes the hook's script to a private file (readable by a
// hook user other than root, so the directory and file are 0755).
func writeScript(dir string, h *model.Hook) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "hook-"+h.Name+"-*")
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(h.Script); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), os.Chmod(f.Name(), 0o755)
}

// boundedBuffer keeps the first max bytes and notes that more came.
type boundedBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) String() string { return b.buf.String() }

// ScriptDir is a helper for callers: the default place for hook scripts
// under a data directory.
func ScriptDir(dataDir string) string { return filepath.Join(dataDir, "hooks") }
