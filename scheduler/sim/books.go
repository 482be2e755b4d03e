package sim

import (
	"strconv"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/scheduler"
)

// ownBooks are the simulator's own books: vnodes, queued and running jobs
// in plain slices and maps, and the plan applied as the server's Raft
// apply does it (jobs start on the vnodes chosen; comments and top-job
// estimates are written to the queued jobs, copied before the change as
// the store does), without a state store's indexes. A test holds them
// equal to the server's state machine (SimBooks in server/schedglue).
type ownBooks struct {
	snap    *scheduler.Snapshot
	byName  map[string]*model.Vnode
	jobs    map[string]*model.Job
	queued  []*model.Job
	running []*model.Job
}

func newOwnBooks(m Machine, cfg scheduler.Config) (Books, error) {
	b := &ownBooks{byName: make(map[string]*model.Vnode, m.Nodes), jobs: map[string]*model.Job{}}
	vnodes := make([]*model.Vnode, m.Nodes)
	for i := range vnodes {
		name := VnodeName(i)
		vnodes[i] = &model.Vnode{Name: name, Host: name,
			Available: map[string]string{"ncpus": strconv.Itoa(m.PPN)},
			Capacity:  map[string]float64{"ncpus": float64(m.PPN)},
			Assigned:  map[string]float64{"ncpus": 0},
			Jobs:      map[string]int{},
		}
		b.byName[name] = vnodes[i]
		offerAOEs(vnodes[i], i, m.AOEs) // aoe_books.go
	}
	b.snap = &scheduler.Snapshot{
		Epoch: 1,
		Defs: model.ResourceDefs{
			"ncpus":    {Name: "ncpus", Type: model.TypeLong, Flags: "hn"},
			"walltime": {Name: "walltime", Type: model.TypeDuration},
		},
		Vnodes: vnodes,
		Queues: map[string]scheduler.Queue{"workq": {Name: "workq"}},
		Config: cfg,
	}
	return b, nil
}

func (b *ownBooks) Submit(j JobSpec, at int64) (string, error) {
	ppn := b.snap.Vnodes[0].Capacity["ncpus"]
	id := strconv.FormatInt(j.TraceID, 10) + ".sim"
	job := &model.Job{
		ID: id, Seq: j.Seq, Queue: "workq", State: model.StateQueued, User: j.User, Group: j.Group,
		Qtime: at, Etime: at, Ctime: at,
		Select: model.Select{{
			Count:   j.Chunks,
			Res:     []model.ResReq{{Name: "ncpus", Value: strconv.FormatFloat(ppn, 'f', -1, 64)}},
			Consume: map[string]float64{"ncpus": ppn},
		}},
		ResourceList: map[string]string{"walltime": model.FormatDuration(j.Walltime)},
	}
	askAOE(job, j.AOE) // aoe_books.go
	b.jobs[id] = job
	b.queued = append(b.queued, job)
	return id, nil
}

func (b *ownBooks) Cycle(now int64) ([]model.RunDecision, error) {
	b.snap.Now, b.snap.Queued, b.snap.Running = now, b.queued, b.running
	plan := scheduler.Schedule(b.snap)
	b.applyPlan(plan, now)
	return plan.Runs, nil
}

// applyPlan applies a plan's runs, comments and estimates.
func (b *ownBooks) applyPlan(plan *scheduler.Plan, now int64) {
	for _, d := range plan.Runs {
		r := b.jobs[d.JobID].Dup()
		r.State, r.Stime, r.Exec = model.StateRunning, now, d.Exec
		r.Comment = ""
		r.SetTopJob(false)
		r.SetEstStart(0)
		r.SetEstExec(nil)
		b.jobs[d.JobID] = &r
		b.assign(&r)
		b.running = append(b.running, &r)
	}
	for _, c := range plan.Comments {
		if j := b.jobs[c.JobID]; j.State == model.StateQueued {
			cp := j.Dup()
			cp.Comment = c.Comment
			if c.NeverRun {
				cp.SetNeverRunEpoch(b.snap.Epoch)
			}
			b.jobs[c.JobID] = &cp
		}
	}
	for _, e := range plan.Estimates {
		if j := b.jobs[e.JobID]; j.State == model.StateQueued {
			cp := j.Dup()
			cp.SetEstStart(e.Start)
			cp.SetEstExec(e.Exec)
			cp.SetTopJob(e.Top)
			b.jobs[e.JobID] = &cp
		}
	}
	kept := b.queued[:0]
	for _, j := range b.queued {
		if cur := b.jobs[j.ID]; cur.State == model.StateQueued {
			kept = append(kept, cur)
		}
	}
	clear(b.queued[len(kept):])
	b.queued = kept
}

func (b *ownBooks) End(id string, _ model.RunDecision, _ int64) error {
	j := b.jobs[id]
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			v := b.byName[sh.Vnode]
			v.Assigned["ncpus"] -= sh.Amounts["ncpus"]
			delete(v.Jobs, j.ID)
		}
	}
	for i, x := range b.running {
		if x == j {
			b.running[i] = b.running[len(b.running)-1]
			b.running[len(b.running)-1] = nil
			b.running = b.running[:len(b.running)-1]
			break
		}
	}
	delete(b.jobs, id)
	return nil
}

func (b *ownBooks) assign(j *model.Job) {
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			v := b.byName[sh.Vnode]
			if sh.AOE != "" {
				v.CurrentAOE = sh.AOE // provisioned for the job (aoe_books.go)
			}
			n := sh.Amounts["ncpus"]
			v.Assigned["ncpus"] += n
			v.Jobs[j.ID] += int(n)
		}
	}
}
