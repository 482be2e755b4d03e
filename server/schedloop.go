package server

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/scheduler"
	"github.com/strata-hpc/strata/server/schedglue"
)

// schedulerLoop runs a cycle when something changed (coalesced, at most once
// per scheduler_min_interval) and every scheduler_iteration regardless.
func (s *Server) schedulerLoop(ctx context.Context) {
	iteration := s.schedulerIteration()
	periodic := time.NewTicker(iteration)
	defer periodic.Stop()
	var last time.Time
	s.kick() // a new leader looks at the queue at once
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.trigger:
		case <-periodic.C:
		}
		// qmgr may have changed scheduler_iteration.
		if it := s.schedulerIteration(); it != iteration {
			iteration = it
			periodic.Reset(it)
		}
		if wait := s.schedMinInterval() - time.Since(last); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		last = time.Now()
		if err := s.cycle(); err != nil {
			s.logger.Printf("scheduling cycle: %v", err)
		}
	}
}

// cycle runs the scheduler over a snapshot and commits its plan as one Raft
// entry. What the cycle reads and commits is schedglue's (tested there over
// a real FSM); the server adds the log lines and the runjob hooks.
func (s *Server) cycle() error {
	snap := s.state()
	cfg := snap.Config()
	if !cfg.Scheduling {
		return nil
	}
	in := schedglue.Input(snap, s.now().Unix())
	plan := scheduler.Schedule(in)
	if plan.Empty() {
		return nil
	}
	cmd := schedglue.Command(in, plan)
	for _, e := range plan.Estimates {
		if e.Top {
			s.logger.Printf("%s;%s", e.JobID, e.Note())
		}
	}
	s.logResvDecisions(plan.Resvs) // reservation hook point (resv_sched.go)
	s.runjobHooks(&cfg, snap, cmd)
	_, err := s.apply(cmd)
	return err
}

// schedulerIteration is the replicated scheduler_iteration, or the file's.
func (s *Server) schedulerIteration() time.Duration {
	if secs := s.state().Config().SchedulerIteration; secs > 0 {
		return time.Duration(secs) * time.Second
	}
	return s.cfg.SchedulerIteration.Duration
}

// schedMinInterval is the replicated sched_min_interval, or the file's.
func (s *Server) schedMinInterval() time.Duration {
	if ms := s.state().Config().Sched.MinIntervalMs; ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return s.cfg.SchedulerMinInterval.Duration
}
