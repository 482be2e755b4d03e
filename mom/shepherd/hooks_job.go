package shepherd

import (
	"context"
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
)

// FileHookFail is written by the shepherd when a job hook failed and its
// fail_action asks the server for something; the agent sends it on.
const FileHookFail = "hookfail.json"

// FileHookLog holds what the job's hooks asked to log and their failures,
// written by the shepherd; the agent copies it into its own log when the
// job ends (the shepherd's log goes away with the job's directory).
const FileHookLog = "hooks.log"

// MaxHookLogRelay bounds what the agent copies of a job's hook log.
const MaxHookLogRelay = 64 << 10

// HookRequestor is the requestor of execution-host events (PBS's name).
const HookRequestor = "pbs_mom"

// JobHookEvents are the events the shepherd runs, in job order.
var JobHookEvents = []string{"execjob_begin", "execjob_prologue", "execjob_epilogue", "execjob_end", checkpointEvent}

// HookFailure is the content of hookfail.json.
type HookFailure struct {
	Hook    string   `json:"hook"`
	Event   string   `json:"event"`
	Actions []string `json:"actions"` // HookOffline, HookRestartCycle
}

// runJobHooks runs the hooks of a job event in order (inside the
// shepherd) and returns the first rejection, or nil when all accepted. A
// hook that failed (alarm, malformed output, could not run) also rejects,
// and its fail_action is recorded for the agent.
func (r *jobRunner) runJobHooks(event string, j *model.Job) *hooks.Outcome {
	var set HookSet
	if err := ReadJSON(filepath.Join(r.dir, FileHooks), &set); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			// The snapshot is written before the shepherd starts; a broken
			// one must not silently skip a site's checks.
			return &hooks.Outcome{Failed: true, Message: "cannot read the job's hooks: " + err.Error()}
		}
		return nil
	}
	all := make(map[string]model.Hook, len(set.Hooks))
	for _, h := range set.Hooks {
		all[h.Name] = h
	}
	runner := &hooks.Runner{Dir: r.dir}
	logger := r.logger
	if f, err := os.OpenFile(filepath.Join(r.dir, FileHookLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
		defer f.Close()
		logger = log.New(io.MultiWriter(f, r.logger.Writer()), r.logger.Prefix(), r.logger.Flags())
	}
	// The agent holds no server state: pbs.server() gives the name only.
	ev := hooks.Event{Type: event, Requestor: HookRequestor, RequestorHost: j.MSHost, Job: j, Vnodes: jobVnodes(j),
		Server: &hooks.ServerView{Name: j.Server}}
	for _, h := range model.OrderedHooks(all, event) {
		h := h
		var cred *hooks.Credential
		if h.User == "pbsuser" {
			cred = &hooks.Credential{UID: uint32(j.UID), GID: uint32(j.GID)}
		}
		out := runner.Run(context.Background(), &h, ev, cred)
		LogHookRun(logger, &h, event, &out)
		if out.Failed {
			r.noteHookFailure(&h, event)
		}
		if !out.Accept {
			return &out
		}
	}
	return nil
}

// noteHookFailure records what fail_action asks of the server. PBS applies
// offline_vnodes to execjob_begin and execjob_prologue failures and
// scheduler_restart_cycle to execjob_begin failures only.
func (r *jobRunner) noteHookFailure(h *model.Hook, event string) {
	f := HookFailure{Hook: h.Name, Event: event}
	if HasFailAction(h, model.HookFailOfflineVnodes) && (event == "execjob_begin" || event == "execjob_prologue") {
		f.Actions = append(f.Actions, HookOffline)
	}
	if HasFailAction(h, model.HookFailSchedulerCycle) && event == "execjob_begin" {
		f.Actions = append(f.Actions, HookRestartCycle)
	}
	if len(f.Actions) == 0 {
		return
	}
	if err := WriteJSONAtomic(filepath.Join(r.dir, FileHookFail), f, 0o600); err != nil {
		r.logger.Printf("record hook failure: %v", err)
	}
}

// startHooks runs a hook event that may stop the job before it runs
// (execjob_begin, execjob_prologue) and turns a rejection into the failed
// result PBS gives: a rejection requeues with Exit_status -16
// (JOB_EXEC_FAILHOOK_RERUN), a hook failure with -22 (JOB_EXEC_HOOKERROR).
func (r *jobRunner) startHooks(event string) *Result {
	out := r.runJobHooks(event, r.job)
	if out == nil {
		return nil
	}
	if out.Failed {
		return Failed(model.ExitHookError, "%s", out.Message)
	}
	return Failed(model.ExitFailHookRerun, "%s", out.Message)
}

// endHooks runs execjob_epilogue or execjob_end: the job has ended, so a
// rejection is only logged (by runJobHooks). The hook sees the job with its
// Exit_status.
func (r *jobRunner) endHooks(event string, res *Result) {
	j := *r.job
	exit := res.Exit
	j.Exit = &exit
	r.runJobHooks(event, &j)
}

// LogHookRun logs a hook's pbs.logmsg lines and, when it failed or
// rejected (or debug is set), the run with its stderr.
func LogHookRun(logger *log.Logger, h *model.Hook, event string, out *hooks.Outcome) {
	for _, line := range out.HookLogLines(event) {
		logger.Print(line)
	}
	if out.ShouldLog(h.Debug) {
		logger.Print(out.LogLine(event))
	}
}

func HasFailAction(h *model.Hook, action string) bool {
	for _, fa := range strings.Split(h.FailAction, ",") {
		if strings.TrimSpace(fa) == action {
			return true
		}
	}
	return false
}

// jobVnodes lists the vnodes of the job's exec_vnode.
func jobVnodes(j *model.Job) []string {
	var out []string
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			out = append(out, sh.Vnode)
		}
	}
	return out
}

// FileHooks names the agent's copy of the hooks in the spool root, and the
// snapshot of them written into each job's directory at launch.
const FileHooks = "hooks.json"

// HookSet is a version of the agent hooks as the server sent it.
type HookSet struct {
	Version uint64       `json:"hook_version"`
	Hooks   []model.Hook `json:"hooks"`
}

// What a failed job hook's fail_action asks of the server (hookfail.json);
// the same words as server/api's HookOffline and HookRestartCycle, which
// this package does not import (it would bring net/http into every
// shepherd's start-up). A test in package mom keeps them equal.
const (
	HookOffline      = "offline"
	HookRestartCycle = "restart_cycle"
)
