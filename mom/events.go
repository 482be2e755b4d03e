package mom

import (
	"context"
	"os"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// pendingEvent is a job event waiting for the server's acknowledgement.
type pendingEvent struct {
	key string // recordKey of the run
	ev  api.JobEvent
	at  time.Time // when it was queued
}

// startedHold is how long a batch of nothing but started reports waits
// for another report before it is sent. A short job's end usually comes
// within it, and its started and ended reports then travel in one request
// and one Raft entry instead of two (each also woke the scheduler). Only
// the started report waits: the job already runs, and the report adds its
// session id and a history line. Every other report is sent at once and
// takes the held ones with it.
const startedHold = 30 * time.Millisecond

// queueLocked appends an event and wakes the sender. Caller holds a.mu.
func (a *Agent) queueLocked(key string, ev api.JobEvent) {
	a.pending = append(a.pending, pendingEvent{key: key, ev: ev, at: time.Now()})
	a.kick()
}

// holdLocked is how much longer the pending events may wait: they are all
// started reports and the oldest was queued less than startedHold ago.
// Caller holds a.mu.
func (a *Agent) holdLocked() time.Duration {
	if len(a.pending) == 0 {
		return 0
	}
	for _, p := range a.pending {
		if p.ev.Kind != api.EventStarted {
			return 0
		}
	}
	return startedHold - time.Since(a.pending[0].at)
}

// eventLoop sends pending events in batches until the server acknowledges
// them. Events are idempotent on the server, so a batch whose reply was lost
// is simply sent again.
func (a *Agent) eventLoop(ctx context.Context) {
	backoff := newBackoff(100*time.Millisecond, 5*time.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.kickEvents:
		}
		for {
			a.mu.Lock()
			hold := a.holdLocked()
			a.mu.Unlock()
			if hold > 0 {
				if !a.waitHold(ctx, hold) {
					return
				}
				continue
			}
			a.mu.Lock()
			batch := make([]api.JobEvent, len(a.pending))
			for i, p := range a.pending {
				batch[i] = p.ev
			}
			a.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			err := a.client.Events(ctx, &api.EventsRequest{Host: a.cfg.Host, Events: batch})
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				a.logger.Printf("report %d job events: %v (retrying)", len(batch), err)
				a.checkUnknownHost(err)
				if !backoff.wait(ctx) {
					return
				}
				continue
			}
			backoff.reset()
			a.acknowledged(len(batch))
		}
	}
}

// waitHold waits until d has passed or another event is queued; it returns
// false when ctx ends.
func (a *Agent) waitHold(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-a.kickEvents:
	case <-t.C:
	}
	return true
}

// acknowledged drops the first n pending events (those just sent; newer
// ones were appended behind them) and removes records that are done.
func (a *Agent) acknowledged(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.pending[:n] {
		rec := a.jobs[p.key]
		if rec == nil {
			continue
		}
		if p.ev.Kind == api.EventEnded || p.ev.Kind == api.EventFailed || p.ev.Kind == api.EventStageinFailed {
			rec.endedAcked = true
		}
	}
	a.pending = append([]pendingEvent(nil), a.pending[n:]...)
	a.collectLocked()
}

// collectLocked removes the spool records of runs whose end the server has
// acknowledged and that have left the work list: from then on nothing can
// ask about them again. Caller holds a.mu.
func (a *Agent) collectLocked() {
	if !a.workSeen {
		return
	}
	for key, rec := range a.jobs {
		if !rec.endedAcked || a.inWork[key] {
			continue
		}
		if rec.stopWatch != nil {
			rec.stopWatch()
		}
		if err := os.RemoveAll(rec.dir); err != nil {
			a.logger.Printf("job %s: remove spool record: %v", rec.job.ID, err)
			continue
		}
		delete(a.jobs, key)
	}
}

// backoff is an exponential retry delay.
type backoff struct {
	min, max, cur time.Duration
}

func newBackoff(min, max time.Duration) *backoff {
	return &backoff{min: min, max: max, cur: min}
}

func (b *backoff) reset() { b.cur = b.min }

// wait sleeps for the current delay, doubling it for next time; it returns
// false when ctx ends first.
func (b *backoff) wait(ctx context.Context) bool {
	t := time.NewTimer(b.cur)
	defer t.Stop()
	if b.cur *= 2; b.cur > b.max {
		b.cur = b.max
	}
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
