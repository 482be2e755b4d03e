package mom

import (
	"context"
	"sync"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// watchInterval is how often a watcher looks at its job's spool directory
// without inotify. With inotify the files' arrival wakes it at once and
// slowWatchInterval only catches a shepherd that died without writing.
const (
	watchInterval     = 150 * time.Millisecond
	slowWatchInterval = time.Second
)

// watchLocked starts the watcher of a running job. Caller holds a.mu.
func (a *Agent) watchLocked(ctx context.Context, wg *sync.WaitGroup, rec *record) {
	wctx, cancel := context.WithCancel(ctx)
	rec.stopWatch = cancel
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		a.watch(wctx, rec)
	}()
}

// watch reports the job's start (session id) and end.
func (a *Agent) watch(ctx context.Context, rec *record) {
	// pollJob reads job.pid and result.json (both written by rename).
	// For startedHold only the result wakes the watcher: a short job's
	// start is then read with its end, and both are reported in one
	// request (events.go) after one wake-up instead of two.
	dw := newDirWatch(rec.dir, fileResult)
	defer dw.Close()
	interval := watchInterval
	if dw != nil {
		interval = slowWatchInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	lookForStart := time.NewTimer(startedHold)
	defer lookForStart.Stop()
	// Whether the shepherd still lives is asked on the ticks only: the
	// files a job's start writes wake the watcher several times, and
	// each look at the shepherd reads its record and /proc.
	checkAlive := true
	for {
		if a.pollJob(rec, checkAlive) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-dw.C():
			checkAlive = false
		case <-lookForStart.C:
			// Watch job.pid before looking at it, so a start written
			// in between still wakes the watcher.
			dw.add(fileJobPid)
			checkAlive = false
		case <-t.C:
			checkAlive = true
		}
	}
}

// pollJob looks at the job's files once and reports whether it has ended;
// checkAlive also looks for a shepherd that died without a result.
func (a *Agent) pollJob(rec *record, checkAlive bool) bool {
	a.noteStarted(rec)
	res, err := readResult(rec.dir)
	if err != nil {
		a.logger.Printf("job %s: %v", rec.job.ID, err)
	}
	if res == nil && err == nil && checkAlive && !shepherdAlive(rec.dir) {
		// The shepherd writes its result before it exits: look again, so
		// an exit between the two checks is not mistaken for a crash.
		if res, err = readResult(rec.dir); res == nil && err == nil {
			a.logger.Printf("job %s: shepherd died without a result", rec.job.ID)
			res = a.lostResult(rec.dir)
		}
	}
	if res == nil {
		return false
	}
	a.noteStarted(rec)
	a.mu.Lock()
	a.finishLocked(rec, res)
	a.mu.Unlock()
	return true
}

// noteStarted queues the started event once the shepherd recorded the job's
// pid.
func (a *Agent) noteStarted(rec *record) {
	a.mu.Lock()
	done := rec.startedQueued
	a.mu.Unlock()
	if done {
		return
	}
	pr, err := readJobPid(rec.dir)
	if err != nil || pr == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if rec.startedQueued {
		return
	}
	rec.startedQueued = true
	a.queueLocked(rec.key, api.JobEvent{
		JobID: rec.job.ID, Kind: api.EventStarted, SessionID: pr.Pid, Run: rec.job.RunCount,
	})
}

// finishLocked records the job's result and queues its end event. Caller
// holds a.mu.
func (a *Agent) finishLocked(rec *record, res *Result) {
	rec.result = res
	if rec.endedQueued {
		return
	}
	rec.endedQueued = true
	if a.holdForHookFailureLocked(rec, res) {
		return // queued once the server has carried out the fail_action
	}
	a.queueLocked(rec.key, api.JobEvent{
		JobID: rec.job.ID, Kind: res.Kind, SessionID: res.SessionID, Exit: res.Exit,
		Used: res.Used, Comment: res.Comment, Run: rec.job.RunCount,
	})
}
