package mom

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-hpc/strata/server/api"
)

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
