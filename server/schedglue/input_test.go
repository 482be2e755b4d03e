package schedglue

import (
	"reflect"
	"slices"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// TestConfig: the sched object as qmgr sets it becomes the scheduler's
// policy; a key that should have been refused falls back rather than
// failing every cycle.
func TestConfig(t *testing.T) {
	thr := 2.5
	for _, tc := range []struct {
		name string
		cfg  model.ServerConfig
		want func(*testing.T, scheduler.Config)
	}{
		{"unset node_sort_key: none (the scheduler's sort_priority HIGH)", model.ServerConfig{}, func(t *testing.T, c scheduler.Config) {
			if len(c.NodeSortKeys) != 0 {
				t.Errorf("node sort keys %+v", c.NodeSortKeys)
			}
		}},
		{"bad node_sort_key: the default", model.ServerConfig{NodeSortKeys: []string{"nonsense"}}, func(t *testing.T, c scheduler.Config) {
			if !reflect.DeepEqual(c.NodeSortKeys, policy.DefaultNodeSortKeys()) {
				t.Errorf("node sort keys %+v", c.NodeSortKeys)
			}
		}},
		{"strict ordering and depth", model.ServerConfig{Sched: model.SchedConfig{StrictOrdering: true, BackfillDepth: 3, ByQueue: true, RoundRobin: true}},
			func(t *testing.T, c scheduler.Config) {
				if !c.StrictOrdering || c.BackfillDepth != 3 || !c.ByQueue || !c.RoundRobin {
					t.Errorf("%+v", c)
				}
			}},
		{"formula and threshold", model.ServerConfig{Sched: model.SchedConfig{JobSortFormula: "ncpus * 2", JobSortFormulaThreshold: &thr}},
			func(t *testing.T, c scheduler.Config) {
				if c.JobSortFormula == nil || c.FormulaThreshold == nil || *c.FormulaThreshold != 2.5 {
					t.Errorf("%+v", c)
				}
			}},
		{"bad formula: none, and no threshold", model.ServerConfig{Sched: model.SchedConfig{JobSortFormula: "ncpus *", JobSortFormulaThreshold: &thr}},
			func(t *testing.T, c scheduler.Config) {
				if c.JobSortFormula != nil || c.FormulaThreshold != nil {
					t.Errorf("%+v", c)
				}
			}},
		{"server default walltime", model.ServerConfig{ResourcesDefault: map[string]string{"walltime": "1:30:00"}},
			func(t *testing.T, c scheduler.Config) {
				if c.DefaultWalltime != 5400 {
					t.Errorf("default walltime %d", c.DefaultWalltime)
				}
			}},
		{"unparsable default walltime: none", model.ServerConfig{ResourcesDefault: map[string]string{"walltime": "soon"}},
			func(t *testing.T, c scheduler.Config) {
				if c.DefaultWalltime != 0 {
					t.Errorf("default walltime %d", c.DefaultWalltime)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cfg.Defs == nil {
				tc.cfg.Defs = model.BuiltinResources()
			}
			tc.want(t, Config(&tc.cfg))
		})
	}
}

// TestInputCandidates: the candidates are the queued jobs of started
// queues and the array parents with queued subjobs; reservation
// tombstones are left out; the command carries the whole plan.
func TestInputCandidates(t *testing.T) {
	stopped := startedQueue("stopped", 0, "")
	stopped.Started = false
	f := newFixture(t, model.ServerConfig{Queues: map[string]model.QueueConfig{
		"workq": startedQueue("workq", 0, ""), "stopped": stopped}})
	f.host("n1", "ncpus=2", "")
	// A walltime, so that q may run before the reservation on n1.
	q := f.submit(job{sel: "1:ncpus=1", res: map[string]string{"walltime": "00:10:00"}}, 100)
	f.submit(job{queue: "stopped", sel: "1:ncpus=1"}, 101)
	arr := &model.Job{Name: "a", User: "alice", Owner: "alice@h", Group: "users", Queue: "workq", Token: "arr",
		Select:       model.Select{{Count: 1, Res: []model.ResReq{{Name: "ncpus", Value: "1"}}, Consume: map[string]float64{"ncpus": 1}}},
		ResourceList: map[string]string{"walltime": "00:10:00"}, Script: "true", SubmitHost: "h", Rerun: true}
	var err error
	if arr.Array, err = model.ParseArraySpec("1-3"); err != nil {
		t.Fatal(err)
	}
	parent := f.apply(&raftstore.SubmitJob{Job: arr, Now: 102}).(string)
	gone := f.submitResv("1:ncpus=9", 5000, 6000, 103)
	live := f.submitResv("1:ncpus=1", 7000, 8000, 104)
	// q and the first subjob run, the big reservation is denied (a
	// tombstone), the other confirmed.
	f.cycle(1000)

	in := Input(f.State(), 2000)
	var ids []string
	for _, j := range in.Queued {
		ids = append(ids, j.ID)
	}
	// The parent has begun (B) and has queued subjobs: a candidate.
	if st := f.seen(parent).State; st != "B/70" || !slices.Equal(ids, []string{parent}) {
		t.Errorf("candidates %v (parent %s), want [%s] (%s runs, the stopped queue's job waits)", ids, st, parent, q)
	}
	var running []string
	for _, j := range in.Running {
		running = append(running, j.ID)
	}
	if sub := model.SubjobID(parent, 1); !slices.Equal(running, []string{q, sub}) {
		t.Errorf("running %v, want [%s %s]", running, q, sub)
	}
	var resvs []string
	for _, r := range in.Reservations {
		resvs = append(resvs, r.ID)
	}
	if !slices.Equal(resvs, []string{live}) {
		t.Errorf("reservations %v, want [%s] (not the tombstone %s)", resvs, live, gone)
	}
	plan := &scheduler.Plan{Runs: []model.RunDecision{{JobID: "x"}}, Comments: []model.JobComment{{JobID: "y"}},
		Estimates: []model.JobEstimate{{JobID: "z"}}, Resvs: []model.ResvDecision{{ID: "r"}}}
	cmd := Command(in, plan)
	if cmd.Now != 2000 || cmd.Epoch != in.Epoch || len(cmd.Runs)+len(cmd.Comments)+len(cmd.Estimates)+len(cmd.Resvs) != 4 {
		t.Errorf("command %+v", cmd)
	}
}
