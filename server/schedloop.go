package server

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// schedulerLoop runs a cycle when something changed (coalesced, at most once
// per scheduler_min_interval) and every scheduler_iteration regardless.
func (s *Server) schedulerLoop(ctx context.Context) {
	periodic := time.NewTicker(s.cfg.SchedulerIteration.Duration)
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
		if wait := s.cfg.SchedulerMinInterval.Duration - time.Since(last); wait > 0 {
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
// entry.
func (s *Server) cycle() error {
	snap := s.state()
	cfg := snap.Config()
	if !cfg.Scheduling {
		return nil
	}
	in := buildSnapshot(snap, s.now().Unix())
	plan := scheduler.Schedule(in)
	if plan.Empty() {
		return nil
	}
	cmd := &raftstore.ApplyPlan{Now: in.Now, Epoch: in.Epoch}
	for _, d := range plan.Runs {
		cmd.Runs = append(cmd.Runs, raftstore.RunJob{JobID: d.JobID, Exec: d.Exec, Exclusive: d.Exclusive})
	}
	for _, c := range plan.Comments {
		cmd.Comments = append(cmd.Comments, raftstore.JobComment{JobID: c.JobID, Comment: c.Comment, NeverRun: c.NeverRun})
	}
	for _, e := range plan.Estimates {
		cmd.Estimates = append(cmd.Estimates, raftstore.JobEstimate{JobID: e.JobID, Start: e.Start, Exec: e.Exec, Top: e.Top})
		if e.Top {
			s.logger.Printf("%s;%s", e.JobID, e.Note())
		}
	}
	_, err := s.apply(cmd)
	return err
}

// buildSnapshot gathers the scheduler's input. It holds pointers to the
// stored (immutable) objects: no per-cycle copy of the state.
func buildSnapshot(snap *raftstore.StateSnapshot, now int64) *scheduler.Snapshot {
	cfg := snap.Config()
	keys, err := policy.ParseNodeSortKeys(cfg.NodeSortKeys)
	if err != nil {
		keys = policy.DefaultNodeSortKeys()
	}
	in := &scheduler.Snapshot{
		Now:    now,
		Epoch:  snap.Epoch(),
		Defs:   cfg.Defs,
		Vnodes: snap.Vnodes(),
		Queues: map[string]scheduler.Queue{},
		Config: scheduler.Config{NodeSortKeys: keys},
	}
	schedPolicy(&in.Config, &cfg)
	for name, q := range cfg.Queues {
		in.Queues[name] = scheduler.Queue{Name: name, Priority: q.Priority, BackfillDepth: q.BackfillDepth}
	}
	for _, j := range snap.JobsInState(model.StateQueued) {
		if q, ok := cfg.Queues[j.Queue]; ok && q.Started {
			in.Queued = append(in.Queued, j)
		}
	}
	for _, st := range []string{model.StateRunning, model.StateSuspended, model.StateExiting} {
		in.Running = append(in.Running, snap.JobsInState(st)...)
	}
	return in
}

// schedPolicy copies the job-order and strict-ordering attributes into the
// scheduler's Config. Bad keys were rejected when the configuration was
// loaded; should one get here anyway it is left out rather than failing
// every cycle. The default walltime is resources_default.walltime.
func schedPolicy(out *scheduler.Config, cfg *model.ServerConfig) {
	out.ByQueue = cfg.ByQueue
	out.RoundRobin = cfg.RoundRobin
	if keys, err := policy.ParseJobSortKeys(cfg.JobSortKeys, cfg.Defs); err == nil {
		out.JobSortKeys = keys
	}
	if cfg.JobSortFormula != "" {
		if f, err := policy.ParseFormula(cfg.JobSortFormula); err == nil {
			out.JobSortFormula = f
			out.FormulaThreshold = cfg.JobSortFormulaThreshold
		}
	}
	out.StrictOrdering = cfg.StrictOrdering
	out.BackfillDepth = cfg.BackfillDepth
	if w, ok := cfg.ResourcesDefault["walltime"]; ok {
		if secs, err := model.ParseDuration(w); err == nil {
			out.DefaultWalltime = secs
		}
	}
}
