package mom

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
	"github.com/strata-hpc/strata/server/api"
)

// fileHookFail is written by the shepherd when a job hook failed and its
// fail_action asks the server for something; the agent sends it on.
const fileHookFail = "hookfail.json"

// fileHookLog holds what the job's hooks asked to log and their failures,
// written by the shepherd; the agent copies it into its own log when the
// job ends (the shepherd's log goes away with the job's directory).
const fileHookLog = "hooks.log"

// maxHookLogRelay bounds what the agent copies of a job's hook log.
const maxHookLogRelay = 64 << 10

// hookRequestor is the requestor of execution-host events (PBS's name).
const hookRequestor = "pbs_mom"

// jobHookEvents are the events the shepherd runs, in job order.
var jobHookEvents = []string{"execjob_begin", "execjob_prologue", "execjob_epilogue", "execjob_end", checkpointEvent}

// hookFailure is the content of hookfail.json.
type hookFailure struct {
	Hook    string   `json:"hook"`
	Event   string   `json:"event"`
	Actions []string `json:"actions"` // api.HookOffline, api.HookRestartCycle
}

// writeJobHooks snapshots the job events' hooks into the job directory at
// launch: the job runs start to end with the hooks it was started with,
// even if the set changes or the agent restarts meanwhile.
func (a *Agent) writeJobHooks(dir string) error {
	set := a.hooks.snapshot()
	keep := hookSet{Version: set.Version}
	for _, h := range set.Hooks {
		for _, e := range jobHookEvents {
			if h.HasEvent(e) {
				keep.Hooks = append(keep.Hooks, h)
				break
			}
		}
	}
	if len(keep.Hooks) == 0 {
		// No job hooks: the shepherd reads a missing snapshot as none,
		// and a job launch saves a file.
		return nil
	}
	return writeJSONRun(filepath.Join(dir, fileHooks), keep, 0o600)
}

// runJobHooks runs the hooks of a job event in order (inside the
// shepherd) and returns the first rejection, or nil when all accepted. A
// hook that failed (alarm, malformed output, could not run) also rejects,
// and its fail_action is recorded for the agent.
func (r *jobRunner) runJobHooks(event string, j *model.Job) *hooks.Outcome {
	var set hookSet
	if err := readJSON(filepath.Join(r.dir, fileHooks), &set); err != nil {
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
	if f, err := os.OpenFile(filepath.Join(r.dir, fileHookLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
		defer f.Close()
		logger = log.New(io.MultiWriter(f, r.logger.Writer()), r.logger.Prefix(), r.logger.Flags())
	}
	// The agent holds no server state: pbs.server() gives the name only.
	ev := hooks.Event{Type: event, Requestor: hookRequestor, RequestorHost: j.MSHost(), Job: j, Vnodes: jobVnodes(j),
		Server: &hooks.ServerView{Name: j.Server}}
	for _, h := range model.OrderedHooks(all, event) {
		h := h
		var cred *hooks.Credential
		if h.User == "pbsuser" {
			cred = &hooks.Credential{UID: uint32(j.UID), GID: uint32(j.GID)}
		}
		out := runner.Run(context.Background(), &h, ev, cred)
		logHookRun(logger, &h, event, &out)
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
	f := hookFailure{Hook: h.Name, Event: event}
	if hasFailAction(h, model.HookFailOfflineVnodes) && (event == "execjob_begin" || event == "execjob_prologue") {
		f.Actions = append(f.Actions, api.HookOffline)
	}
	if hasFailAction(h, model.HookFailSchedulerCycle) && event == "execjob_begin" {
		f.Actions = append(f.Actions, api.HookRestartCycle)
	}
	if len(f.Actions) == 0 {
		return
	}
	if err := writeJSONAtomic(filepath.Join(r.dir, fileHookFail), f, 0o600); err != nil {
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
		return failed(model.ExitHookError, "%s", out.Message)
	}
	return failed(model.ExitFailHookRerun, "%s", out.Message)
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

// relayHookLog copies what the job's hooks logged (hooks.log, bounded) into
// the agent's log, so a failed job hook is in the agent's log whatever its
// debug says. Each line was written by logHookRun: quoted, one line each.
func (a *Agent) relayHookLog(rec *record) {
	f, err := os.Open(filepath.Join(rec.dir, fileHookLog))
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxHookLogRelay))
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if line != "" {
			a.logger.Printf("job %s: %s", rec.job.ID, line)
		}
	}
}

// logHookRun logs a hook's pbs.logmsg lines and, when it failed or
// rejected (or debug is set), the run with its stderr.
func logHookRun(logger *log.Logger, h *model.Hook, event string, out *hooks.Outcome) {
	for _, line := range out.HookLogLines(event) {
		logger.Print(line)
	}
	if out.ShouldLog(h.Debug) {
		logger.Print(out.LogLine(event))
	}
}

func hasFailAction(h *model.Hook, action string) bool {
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

// holdForHookFailureLocked handles a job whose hook failed with a
// fail_action (hookfail.json from the shepherd): the server is asked to
// carry it out (offline the vnodes...) before the job's end is reported,
// so the requeued job cannot be placed on this host again in between. It
// reports whether it took over reporting res. Caller holds a.mu.
func (a *Agent) holdForHookFailureLocked(rec *record, res *Result) bool {
	a.relayHookLog(rec)
	var f hookFailure
	if err := readJSON(filepath.Join(rec.dir, fileHookFail), &f); err != nil || len(f.Actions) == 0 || a.bgCtx == nil {
		return false
	}
	ev := api.JobEvent{
		JobID: rec.job.ID, Kind: res.Kind, SessionID: res.SessionID, Exit: res.Exit,
		Used: res.Used, Comment: res.Comment, Run: rec.job.RunCount,
	}
	ctx := a.bgCtx
	a.bgWG.Add(1)
	go func() {
		defer a.bgWG.Done()
		for _, act := range f.Actions {
			a.hookAction(ctx, api.HookActionRequest{Host: a.cfg.Host, Hook: f.Hook, Event: f.Event, Action: act})
		}
		if ctx.Err() != nil {
			return // the next agent finds the result and does this again
		}
		a.mu.Lock()
		a.queueLocked(rec.key, ev)
		a.mu.Unlock()
	}()
	return true
}
