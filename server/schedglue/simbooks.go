package schedglue

import (
	"fmt"
	"strconv"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
	"github.com/strata-hpc/strata/scheduler/sim"
)

// SimBooks are simulation books kept by the server's state machine: hosts
// register, jobs are submitted as SubmitJob entries, each cycle is the
// leader's (Input, Schedule, the ApplyPlan command), and a job's end is its
// agent's "ended" event, all applied through a Harness. `strata simulate
// --state-machine` runs on them; the simulator's own books are held equal
// to them by a test.
func SimBooks(m sim.Machine, cfg scheduler.Config) (sim.Books, error) {
	h, err := NewHarness(model.ServerConfig{
		Name:   "sim",
		Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}},
		Sched:  model.SchedConfig{StrictOrdering: cfg.StrictOrdering, BackfillDepth: int64(cfg.BackfillDepth)},
	})
	if err != nil {
		return nil, err
	}
	for i := 0; i < m.Nodes; i++ {
		name := sim.VnodeName(i)
		v := &model.Vnode{Name: name, Available: map[string]string{"ncpus": strconv.Itoa(m.PPN)}}
		if _, err := h.Apply(&raftstore.RegisterHost{Host: name, Vnodes: []*model.Vnode{v}}); err != nil {
			return nil, err
		}
	}
	return &fsmBooks{h: h, ppn: m.PPN}, nil
}

type fsmBooks struct {
	h   *Harness
	ppn int
}

func (b *fsmBooks) Submit(j sim.JobSpec, at int64) (string, error) {
	sel, err := model.ParseSelect(fmt.Sprintf("%d:ncpus=%d", j.Chunks, b.ppn), model.BuiltinResources())
	if err != nil {
		return "", err
	}
	job := &model.Job{Name: "sim", User: "sim", Owner: "sim@sim", Queue: "workq", Select: sel,
		ResourceList: map[string]string{"walltime": model.FormatDuration(j.Walltime)}}
	out, err := b.h.Apply(&raftstore.SubmitJob{Job: job, Now: at})
	if err != nil {
		return "", err
	}
	id, _ := out.(string)
	return id, nil
}

func (b *fsmBooks) Cycle(now int64) ([]model.RunDecision, error) {
	c, err := b.h.Cycle(now)
	if err != nil {
		return nil, err
	}
	if c.Started != len(c.Plan.Runs) {
		return nil, fmt.Errorf("at %d the state machine started %d of %d jobs", now, c.Started, len(c.Plan.Runs))
	}
	return c.Plan.Runs, nil
}

func (b *fsmBooks) End(id string, run model.RunDecision, now int64) error {
	ev := &raftstore.JobEvents{Host: run.Exec[0].Shares[0].Host, Now: now,
		Events: []model.JobEvent{{JobID: id, Kind: model.JobEventEnded, Run: 1}}}
	_, err := b.h.Apply(ev)
	return err
}
