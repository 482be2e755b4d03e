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
	// The plan's types are the command's (model/plan.go): no conversion.
	cmd := &raftstore.ApplyPlan{Now: in.Now, Epoch: in.Epoch, Runs: plan.Runs, Comments: plan.Comments, Estimates: plan.Estimates}
	for _, e := range plan.Estimates {
		if e.Top {
			s.logger.Printf("%s;%s", e.JobID, e.Note())
		}
	}
	s.resvPlan(plan, cmd) // reservation hook point (resv_sched.go)
	s.runjobHooks(&cfg, snap, cmd)
	_, err := s.apply(cmd)
	return err
}

// buildSnapshot gathers the scheduler's input. It holds pointers to the
// stored (immutable) objects: no per-cycle copy of the state.
func buildSnapshot(snap *raftstore.StateSnapshot, now int64) *scheduler.Snapshot {
	cfg := snap.Config()
	in := &scheduler.Snapshot{
		Now:    now,
		Epoch:  snap.Epoch(),
		Defs:   cfg.Defs,
		Vnodes: snap.Vnodes(),
		Queues: map[string]scheduler.Queue{},
		Config: schedConfig(&cfg),
		// Provisioning hook point (provision_sched.go).
		Provision: provisionInfo(snap, &cfg),
		// Reservation hook point (resv_sched.go).
		Reservations: liveReservations(snap),
	}
	for name, q := range cfg.Queues {
		in.Queues[name] = scheduler.Queue{Name: name, Priority: q.Priority, BackfillDepth: q.BackfillDepth,
			DefaultWalltime: defaultWalltime(q.ResourcesDefault)}
	}
	for _, st := range []string{model.StateRunning, model.StateSuspended, model.StateExiting} {
		in.Running = append(in.Running, snap.JobsInState(st)...)
	}
	// max_run is applied here: a job over its limits is not a candidate.
	// Candidates are admitted in the scheduler's own job order (the same
	// function Schedule ranks with) so the limit keeps the jobs the
	// scheduler would pick.
	allow := runAllowance(&cfg, in.Running)
	for _, j := range scheduler.JobOrder(in).SortJobs(schedulableJobs(snap)) {
		if q, ok := cfg.Queues[j.Queue]; ok && q.Started && allow(j) {
			in.Queued = append(in.Queued, j)
		}
	}
	return in
}

// schedConfig maps the replicated sched object (and node_sort_key) to the
// scheduler's policy. Bad keys were rejected when they were set; should one
// get here anyway it is left out rather than failing every cycle. The
// default walltime is resources_default.walltime.
func schedConfig(cfg *model.ServerConfig) scheduler.Config {
	keys, err := policy.ParseNodeSortKeys(cfg.NodeSortKeys)
	if err != nil {
		keys = policy.DefaultNodeSortKeys()
	}
	sc := cfg.Sched
	out := scheduler.Config{
		NodeSortKeys:   keys,
		ByQueue:        sc.ByQueue,
		RoundRobin:     sc.RoundRobin,
		StrictOrdering: sc.StrictOrdering,
		BackfillDepth:  int(sc.BackfillDepth),
	}
	if jk, err := policy.ParseJobSortKeys(sc.JobSortKeys, cfg.Defs); err == nil {
		out.JobSortKeys = jk
	}
	if sc.JobSortFormula != "" {
		if f, err := policy.ParseFormula(sc.JobSortFormula); err == nil {
			out.JobSortFormula = f
			out.FormulaThreshold = sc.JobSortFormulaThreshold
		}
	}
	out.DefaultWalltime = defaultWalltime(cfg.ResourcesDefault)
	return out
}

// defaultWalltime is resources_default.walltime in seconds (of the server
// or a queue), 0 when unset or unparsable (the scheduler then falls back
// to the next level, see scheduler.Queue.DefaultWalltime).
func defaultWalltime(defaults map[string]string) int64 {
	if w, ok := defaults["walltime"]; ok {
		if secs, err := model.ParseDuration(w); err == nil && secs > 0 {
			return secs
		}
	}
	return 0
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
