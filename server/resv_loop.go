package server

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/schedglue"
)

// resvTombstoneTTL is how long a denied or deleted reservation stays
// visible to pbs_rsub -I.
const resvTombstoneTTL = 600

// resvMaxSleep bounds the reservation loop's sleep: retries of
// provisioning that found a busy host, and clock steps, are noticed at
// least this often.
const resvMaxSleep = time.Second

// resvLoop is the leader loop of reservations: it proposes each timed
// transition (provisioning lead, start, end) when its time comes. It keeps
// no state of its own; the times are in the replicated reservations, so a
// new leader resumes every timer from the state.
func (s *Server) resvLoop(ctx context.Context) {
	for {
		snap := s.state()
		watch := snap.ResvWatch()
		next := s.resvStep(snap)
		wait := min(max(time.Until(next), 10*time.Millisecond), resvMaxSleep)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-watch:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// resvStep proposes what is due and returns when the next thing is.
func (s *Server) resvStep(snap *raftstore.StateSnapshot) time.Time {
	cfg := snap.Config()
	info := schedglue.ProvisionInfo(snap, &cfg)
	now := s.now().Unix()
	next := now + 3600
	purge := false
	for _, r := range snap.Reservations() {
		if r.Gone != 0 {
			if r.Gone+resvTombstoneTTL <= now {
				purge = true
			}
			next = min(next, r.Gone+resvTombstoneTTL)
			continue
		}
		if r.AOE != "" && !r.Provisioned && r.State == model.ResvConfirmed {
			lead := r.Start - info.Estimate(r.AOE)
			if now >= lead {
				s.resvEvent(r.ID, raftstore.ResvEventProvision, now)
			} else {
				next = min(next, lead)
			}
		}
		switch {
		case (r.State == model.ResvRunning || r.State == model.ResvConfirmed) && now >= r.End:
			s.resvEvent(r.ID, raftstore.ResvEventEnd, now)
		case r.State == model.ResvConfirmed && now >= r.Start:
			s.resvEvent(r.ID, raftstore.ResvEventStart, now)
		case r.State == model.ResvConfirmed:
			next = min(next, r.Start)
		case r.State == model.ResvRunning:
			next = min(next, r.End)
		}
	}
	next = min(next, s.abandonStaleAlters(snap, now)) // resv_alter.go
	if purge {
		if _, err := s.apply(&raftstore.ResvEvent{Kind: raftstore.ResvEventPurge, Before: now - resvTombstoneTTL + 1, Now: now}); err != nil {
			s.logger.Printf("purge reservations: %v", err)
		}
	}
	return time.Unix(next, 0)
}

func (s *Server) resvEvent(id, kind string, now int64) {
	out, err := s.apply(&raftstore.ResvEvent{ID: id, Kind: kind, Now: now})
	if err != nil {
		s.logger.Printf("%s;reservation %s: %v", id, kind, err)
		return
	}
	res, _ := out.(*raftstore.ResvEventResult)
	if res == nil || !res.Done {
		return
	}
	s.mailResvEvent(id, kind) // mail_events.go
	switch kind {
	case raftstore.ResvEventStart:
		s.logger.Printf("%s;Reservation period starting", id)
	case raftstore.ResvEventEnd:
		s.logger.Printf("%s;Reservation period ended", id)
	case raftstore.ResvEventProvision:
		s.logger.Printf("%s;Provisioning of the reservation's hosts queued before its start", id)
	}
}
