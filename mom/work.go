package mom

import (
	"context"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// workWait is how long one work long-poll may wait on the server.
const workWait = 30 * time.Second

// workLoop long-polls the server for this host's work list and reconciles
// after every answer. It starts after the first registration.
func (a *Agent) workLoop(ctx context.Context, registered <-chan struct{}, wg *sync.WaitGroup) {
	select {
	case <-ctx.Done():
		return
	case <-registered:
	}
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	hb := newBackoff(100*time.Millisecond, 5*time.Second)
	var index uint64
	for {
		resp, err := a.client.WorkHooks(ctx, a.cfg.Host, index, a.hooks.snapshot().Version, workWait)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			a.logger.Printf("work poll: %v (retrying)", err)
			a.checkUnknownHost(err)
			if !b.wait(ctx) {
				return
			}
			continue
		}
		b.reset()
		index = resp.Index
		hooksOK := a.syncHooks(ctx, resp.HookVersion)
		a.reconcile(ctx, wg, resp.Jobs)
		a.provision(ctx, resp.Provision) // provisioning hook point (provision.go)
		if !hooksOK {
			// Jobs to start wait (they are not failed) until the hooks
			// arrive: poll again soon instead of at the next change.
			index = 0
			if !hb.wait(ctx) {
				return
			}
			continue
		}
		hb.reset()
	}
}

// reconcile brings the host in line with the server's list of jobs it should
// run as mother superior. It is level-triggered: the whole list is compared
// with the local records each time, so a lost or repeated answer does no
// harm, and a job is started only when no record of its run exists.
func (a *Agent) reconcile(ctx context.Context, wg *sync.WaitGroup, jobs []*api.WorkItem) {
	owners := a.ownersToStart(jobs) // launch.go
	a.mu.Lock()
	defer a.mu.Unlock()
	inWork := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		key := recordKey(j.ID, j.RunCount)
		inWork[key] = true
		rec := a.jobs[key]
		switch {
		case rec == nil && j.Substate == model.SubPrerun:
			a.startLocked(ctx, wg, j.Job, owners[key])
		case rec == nil:
			// The server believes this run is under way here, but there is
			// no record of it: it was lost (spool wiped, or the record was
			// never written). Never start it a second time.
			if !a.lost[key] {
				a.lost[key] = true
				a.logger.Printf("job %s (run %d) is listed at substate %d but unknown here; reporting it lost", j.ID, j.RunCount, j.Substate)
				a.queueLocked(key, api.JobEvent{
					JobID: j.ID, Kind: api.EventFailed, Exit: model.ExitInitAbort, Run: j.RunCount,
					Comment: "job lost: the execution host has no record of it",
				})
			}
		case j.KillRequested() && rec.result == nil && !rec.killSent:
			a.killLocked(rec, "deleted")
		}
		if rec := a.jobs[key]; rec != nil && rec.result == nil && maxSigN(j.Signals()) > rec.sigsWritten {
			a.signalLocked(rec, j.Signals())
		}
	}
	// A run still going here that the server no longer lists (deleted with
	// force, or requeued elsewhere) must not keep running.
	for key, rec := range a.jobs {
		if !inWork[key] && rec.result == nil && !rec.killSent {
			a.killLocked(rec, "no longer listed by the server")
		}
	}
	for key := range a.lost {
		if !inWork[key] {
			delete(a.lost, key)
		}
	}
	a.inWork = inWork
	a.workSeen = true
	a.collectLocked()
}

// killLocked asks the job's shepherd to terminate the job (SIGTERM to the
// shepherd; it signals the job's process group and escalates to SIGKILL
// after kill_delay, even if this agent restarts meanwhile).
func (a *Agent) killLocked(rec *record, why string) {
	var sr shepherdRecord
	if err := readJSON(filepath.Join(rec.dir, fileShepherd), &sr); err != nil || !shepherdAlive(rec.dir) {
		return // ended meanwhile; its watcher reports the result
	}
	a.logger.Printf("job %s: %s; asking shepherd %d to kill it", rec.job.ID, why, sr.Pid)
	if err := syscall.Kill(sr.Pid, syscall.SIGTERM); err != nil {
		a.logger.Printf("job %s: signal shepherd: %v", rec.job.ID, err)
		return
	}
	rec.killSent = true
}
