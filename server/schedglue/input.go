package schedglue

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// Input gathers the scheduler's input at time now. It holds pointers to
// the stored (immutable) objects: no per-cycle copy of the state.
func Input(snap *raftstore.StateSnapshot, now int64) *scheduler.Snapshot {
	cfg := snap.Config()
	in := &scheduler.Snapshot{
		Now:          now,
		Epoch:        snap.Epoch(),
		Defs:         cfg.Defs,
		Vnodes:       snap.Vnodes(),
		Queues:       make(map[string]scheduler.Queue, len(cfg.Queues)),
		Config:       Config(&cfg),
		Provision:    ProvisionInfo(snap, &cfg),
		Reservations: LiveReservations(snap),
	}
	for name, q := range cfg.Queues {
		in.Queues[name] = scheduler.Queue{Name: name, Priority: q.Priority, BackfillDepth: q.BackfillDepth,
			DefaultWalltime: defaultWalltime(q.ResourcesDefault), NodeGroupKey: q.NodeGroupKey}
	}
	for _, st := range []string{model.StateRunning, model.StateSuspended, model.StateExiting} {
		in.Running = append(in.Running, snap.JobsInState(st)...)
	}
	// max_run is applied here: a job over its limits is not a candidate.
	// Candidates are admitted in the scheduler's own job order (the same
	// function Schedule ranks with) so the limit keeps the jobs the
	// scheduler would pick.
	// A job kept back says why in its comment, as in OpenPBS. This is the
	// one sort of the queue: Schedule takes the order as it is
	// (QueuedRanked) unless round_robin interleaves queues.
	in.PreemptClasses = SoftLimitClasses(&cfg, in.Running) // preemption hook point (preempt.go)
	allow := RunAllowance(&cfg, in.Running)
	cands := Schedulable(snap)
	in.Config.Fairshare = Fairshare(&cfg, snap, cands) // fairshare.go
	// Preemption hook point (preempt.go).
	in.PreemptClasses = FairshareClasses(&cfg, snap, in.Config.Preempt, in.Running, cands, in.PreemptClasses)
	for _, j := range scheduler.JobOrder(in).SortJobs(cands) {
		if q, ok := cfg.Queues[j.Queue]; !ok || !q.Started {
			continue
		}
		if text := noSharesComment(in.Config.Fairshare, j); text != "" {
			if text != j.Comment {
				in.Withheld = append(in.Withheld, model.JobComment{JobID: j.ID, Comment: text})
			}
			continue
		}
		ok, why := allow(j)
		if ok {
			in.Queued = append(in.Queued, j)
			continue
		}
		if text := scheduler.NotRunning(why); text != j.Comment {
			in.Withheld = append(in.Withheld, model.JobComment{JobID: j.ID, Comment: text})
		}
	}
	in.QueuedRanked = true
	return in
}

// Schedulable are the scheduler's candidates before limits and queue
// state: queued jobs and the array parents that have begun and still have
// queued subjobs, in no particular order (the caller sorts them in job
// order, a total order).
func Schedulable(snap *raftstore.StateSnapshot) []*model.Job {
	out := snap.JobsInStateUnordered(model.StateQueued)
	for _, j := range snap.JobsInStateUnordered(model.StateBegun) {
		if j.Array != nil && len(j.Array.Queued) > 0 {
			out = append(out, j)
		}
	}
	return out
}

// LiveReservations are the reservations the scheduler looks at: every one
// that is not a tombstone.
func LiveReservations(snap *raftstore.StateSnapshot) []*model.Reservation {
	var out []*model.Reservation
	for _, r := range snap.Reservations() {
		if r.Gone == 0 {
			out = append(out, r)
		}
	}
	return out
}

// Command is the plan of a cycle over in as the one Raft entry the leader
// commits. The plan's types are the command's (model/plan.go), so nothing
// is converted; Now and Epoch let the FSM tell a stale "never runs" mark.
func Command(in *scheduler.Snapshot, plan *scheduler.Plan) *raftstore.ApplyPlan {
	return &raftstore.ApplyPlan{Now: in.Now, Epoch: in.Epoch, Runs: plan.Runs, Comments: plan.Comments,
		Estimates: plan.Estimates, Resvs: plan.Resvs, SoftWalltimes: plan.SoftWalltimes, Preempts: plan.Preempts, Resumes: plan.Resumes}
}
