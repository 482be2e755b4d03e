package server

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
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
	start := time.Now()
	in := schedglue.Input(snap, s.now().Unix())
	s.gatePreemption(in) // preempt.go
	plan, cmd := s.planWithRunjobHooks(&cfg, snap, in)
	if plan.Empty() && len(cmd.Comments) == 0 {
		s.metrics.ObserveCycle(time.Since(start), len(in.Queued), 0)
		return nil
	}
	defer func() { s.metrics.ObserveCycle(time.Since(start), len(in.Queued), len(cmd.Runs)) }()
	for _, e := range plan.Estimates {
		if e.Top {
			s.logger.Printf("%s;%s", e.JobID, e.Note())
		}
	}
	s.logResvDecisions(s.newResvDecisions(plan.Resvs)) // reservation hook point (resv_sched.go); alterations: mail_events.go
	if _, err := s.apply(cmd); err != nil {
		return err
	}
	s.resvVerdictsDone(plan.Resvs) // alterations' log lines and mail (mail_events.go)
	return nil
}

// maxRunjobReplans bounds how often one cycle is planned again after
// runjob hooks rejected some of its decisions; what is left is planned in
// the next cycle.
const maxRunjobReplans = 8

// planWithRunjobHooks plans a cycle and puts its run decisions to the
// runjob hooks. A job a hook rejects gives back what the plan booked for
// it (vnodes, a provisioning slot) at once: the cycle is planned again
// without it, as OpenPBS's scheduler goes on with its next job when a run
// request fails. So an identical job behind a rejected one reaches the
// hook in the same cycle rather than meeting the rejected job's booking
// ("Provision conflict with existing job/reservation") every cycle.
func (s *Server) planWithRunjobHooks(cfg *model.ServerConfig, snap *raftstore.StateSnapshot, in *scheduler.Snapshot) (*scheduler.Plan, *raftstore.ApplyPlan) {
	verdicts := map[string]error{}
	var refused []model.JobComment
	for replans := 0; ; replans++ {
		plan := scheduler.Schedule(in)
		cmd := schedglue.Command(in, plan)
		rejected := s.runjobHooks(cfg, snap, cmd, verdicts)
		if len(rejected) == 0 || replans == maxRunjobReplans {
			cmd.Comments = append(cmd.Comments, refused...)
			return plan, cmd
		}
		out := map[string]bool{}
		for _, id := range rejected {
			out[id] = true
		}
		for _, c := range cmd.Comments {
			if out[c.JobID] {
				refused = append(refused, c)
			}
		}
		kept := make([]*model.Job, 0, len(in.Queued))
		for _, j := range in.Queued {
			if !out[j.ID] {
				kept = append(kept, j)
			}
		}
		replan := *in
		replan.Queued = kept
		in = &replan
	}
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
