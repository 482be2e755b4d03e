package server

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// resvExtraStep is the reservation loop's part for degraded and
// job-specific reservations; it returns when it next has something to do
// (now+3600 when nothing). Like the rest of the loop it keeps no state: a
// new leader finds RetryAt and IdleSince in the replicated reservations.
//
//   - A degraded reservation whose reserve_retry_time has come asks for a
//     scheduling cycle (without reserve_retry_time every cycle retries,
//     and the degradation itself was an entry that started one).
//   - A running reservation with delete_idle_time gets an idle event when
//     it became empty, has jobs again, or has been empty long enough.
func (s *Server) resvExtraStep(r *model.Reservation, busy func(queue string) bool, now int64) int64 {
	next := now + 3600
	if r.Degraded() && r.RetryAt > 0 {
		if r.RetryAt <= now {
			s.kick()
		} else {
			next = r.RetryAt
		}
	}
	if r.DeleteIdleTime > 0 && r.State == model.ResvRunning {
		empty := !busy(r.Queue)
		switch {
		case empty && r.IdleSince == 0, !empty && r.IdleSince != 0:
			s.resvEvent(r.ID, raftstore.ResvEventIdle, now)
		case empty && now >= r.IdleSince+r.DeleteIdleTime:
			s.resvEvent(r.ID, raftstore.ResvEventIdle, now)
			s.logger.Printf("%s;Reservation deleted: idle for %d seconds", r.ID, r.DeleteIdleTime)
		case empty:
			next = r.IdleSince + r.DeleteIdleTime
		default:
			next = now + 1 // its jobs may all end: look again soon
		}
	}
	return next
}

// busyQueues returns a test of whether a queue holds an unfinished job.
// The queues are collected on the first call only (one pass over the
// unfinished jobs per step of the loop), and only if some reservation
// needs them.
func busyQueues(snap *raftstore.StateSnapshot) func(queue string) bool {
	var busy map[string]bool
	return func(queue string) bool {
		if busy == nil {
			busy = map[string]bool{}
			for _, st := range []string{model.StateQueued, model.StateHeld, model.StateWaiting, model.StateRunning,
				model.StateSuspended, model.StateExiting, model.StateBegun, model.StateTransit} {
				for _, j := range snap.JobsInStateUnordered(st) {
					busy[j.Queue] = true
				}
			}
		}
		return busy[queue]
	}
}
