package server

import (
	"fmt"
	"io"
	"log"
	"slices"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// memFSM is a real FSM in memory, fed commands as Raft would feed them,
// for testing the glue between the state and the scheduler without a
// cluster.
type memFSM struct {
	t     *testing.T
	fsm   *raftstore.FSM
	index uint64
}

func newMemFSM(t *testing.T, cfg model.ServerConfig) *memFSM {
	t.Helper()
	f, err := raftstore.NewFSM(log.New(io.Discard, "", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &memFSM{t: t, fsm: f}
	if cfg.Name == "" {
		cfg.Name = "svr"
	}
	if cfg.Defs == nil {
		cfg.Defs = model.BuiltinResources()
	}
	if cfg.MaxJobSequenceID == 0 {
		cfg.MaxJobSequenceID = 9999999
	}
	m.apply(&raftstore.SetServerConfig{Config: cfg, Now: 1})
	return m
}

func (m *memFSM) apply(c raftstore.Command) any {
	m.t.Helper()
	data, err := raftstore.Encode(c)
	if err != nil {
		m.t.Fatal(err)
	}
	m.index++
	res := m.fsm.Apply(&raft.Log{Index: m.index, Type: raft.LogCommand, Data: data})
	if err, ok := res.(error); ok {
		m.t.Fatalf("apply %T: %v", c, err)
	}
	return res
}

// submit stores a queued job and returns its id.
func (m *memFSM) submit(queue, sel string, resources map[string]string, priority int, now int64) string {
	m.t.Helper()
	s, err := model.ParseSelect(sel, model.BuiltinResources())
	if err != nil {
		m.t.Fatal(err)
	}
	rl := map[string]string{}
	for k, v := range resources {
		rl[k] = v
	}
	j := &model.Job{
		Name: "job", User: "alice", Owner: "alice@h", Group: "users", Queue: queue,
		Token: fmt.Sprintf("tok%d", now), Select: s, ResourceList: rl, Priority: priority,
		Script: "true", SubmitHost: "h", Rerun: true,
	}
	id, ok := m.apply(&raftstore.SubmitJob{Job: j, Now: now}).(string)
	if !ok {
		m.t.Fatalf("submit returned no id")
	}
	return id
}

func (m *memFSM) snap() *raftstore.StateSnapshot { return m.fsm.State().Snapshot() }

func queuedIDs(in *scheduler.Snapshot) []string {
	var ids []string
	for _, j := range in.Queued {
		ids = append(ids, j.ID)
	}
	return ids
}

func startedQueue(name string, prio int, maxRun string) model.QueueConfig {
	return model.QueueConfig{Name: name, Enabled: true, Started: true, Priority: prio, MaxRun: maxRun}
}

// TestMaxRunCandidatesFollowTheJobOrder: with a max_run limit that lets
// only some queued jobs be candidates, the ones kept are the ones the
// scheduler's own order (job_sort_key, job_sort_formula, round_robin)
// puts first, not merely the highest priority or the oldest.
func TestMaxRunCandidatesFollowTheJobOrder(t *testing.T) {
	type job struct {
		queue, sel string
		prio       int
	}
	for _, tc := range []struct {
		name   string
		maxRun string
		queues []model.QueueConfig
		sched  model.SchedConfig
		jobs   []job
		want   []int // indexes into jobs
	}{
		{
			name: "default: priority then submission", maxRun: "[o:PBS_ALL=1]",
			jobs: []job{{"workq", "1:ncpus=1", 0}, {"workq", "1:ncpus=2", 5}},
			want: []int{1},
		},
		{
			name: "job_sort_key ncpus HIGH", maxRun: "[o:PBS_ALL=1]",
			sched: model.SchedConfig{JobSortKeys: []string{"ncpus HIGH"}},
			jobs:  []job{{"workq", "1:ncpus=1", 5}, {"workq", "1:ncpus=4", 0}},
			want:  []int{1},
		},
		{
			name: "job_sort_key ncpus LOW", maxRun: "[o:PBS_ALL=2]",
			sched: model.SchedConfig{JobSortKeys: []string{"ncpus LOW"}},
			jobs:  []job{{"workq", "1:ncpus=4", 0}, {"workq", "1:ncpus=3", 0}, {"workq", "1:ncpus=1", 0}},
			want:  []int{2, 1},
		},
		{
			name: "job_sort_formula", maxRun: "[o:PBS_ALL=1]",
			sched: model.SchedConfig{JobSortFormula: "ncpus * 10"},
			jobs:  []job{{"workq", "1:ncpus=1", 9}, {"workq", "1:ncpus=2", 0}},
			want:  []int{1},
		},
		{
			name: "round_robin takes one job of each queue", maxRun: "[o:PBS_ALL=2]",
			queues: []model.QueueConfig{startedQueue("qa", 0, ""), startedQueue("qb", 0, "")},
			sched:  model.SchedConfig{RoundRobin: true},
			jobs:   []job{{"qa", "1:ncpus=1", 0}, {"qa", "1:ncpus=1", 0}, {"qb", "1:ncpus=1", 0}},
			want:   []int{0, 2},
		},
		{
			name: "by_queue", maxRun: "[o:PBS_ALL=1]",
			queues: []model.QueueConfig{startedQueue("lo", 1, ""), startedQueue("hi", 9, "")},
			sched:  model.SchedConfig{ByQueue: true},
			jobs:   []job{{"lo", "1:ncpus=1", 100}, {"hi", "1:ncpus=1", 0}},
			want:   []int{1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := model.ServerConfig{MaxRun: tc.maxRun, Sched: tc.sched,
				Queues: map[string]model.QueueConfig{"workq": startedQueue("workq", 0, "")}}
			for _, q := range tc.queues {
				cfg.Queues[q.Name] = q
			}
			m := newMemFSM(t, cfg)
			var ids []string
			for i, j := range tc.jobs {
				ids = append(ids, m.submit(j.queue, j.sel, nil, j.prio, int64(100+i)))
			}
			in := buildSnapshot(m.snap(), 1000)
			var want []string
			for _, i := range tc.want {
				want = append(want, ids[i])
			}
			got := queuedIDs(in)
			if !slices.Equal(got, want) {
				t.Fatalf("candidates = %v, want %v", got, want)
			}
			// The scheduler, given every job, would rank the same ones first.
			all := *in
			all.Queued = m.snap().JobsInState(model.StateQueued)
			ranked := scheduler.JobOrder(&all).SortJobs(all.Queued)
			for i := range want {
				if ranked[i].ID != want[i] {
					t.Errorf("scheduler rank %d = %s, candidates kept %s", i, ranked[i].ID, want[i])
				}
			}
		})
	}
}

// registerHost adds one host with one vnode of ncpus CPUs.
func (m *memFSM) registerHost(host, ncpus string) {
	m.t.Helper()
	m.apply(&raftstore.RegisterHost{Host: host, BootID: "b1", Now: 10, Vnodes: []*model.Vnode{{
		Name: host, Available: map[string]string{"ncpus": ncpus, "mem": "4gb", "host": host, "vnode": host},
	}}})
}

// schedule runs one cycle over the current state, commits its run
// decisions through the FSM as the leader does, and returns the plan.
func (m *memFSM) schedule(now int64) *scheduler.Plan {
	m.t.Helper()
	in := buildSnapshot(m.snap(), now)
	plan := scheduler.Schedule(in)
	m.apply(&raftstore.ApplyPlan{Now: in.Now, Epoch: in.Epoch, Runs: plan.Runs})
	return plan
}

// TestQueueDefaultWalltimeSetsTheBackfillEstimate: a running job with no
// walltime of its own ends, for the calendar, after its queue's
// resources_default.walltime (over the server's), so the top job behind
// it gets its estimated start from the queue's default.
func TestQueueDefaultWalltimeSetsTheBackfillEstimate(t *testing.T) {
	for _, tc := range []struct {
		name          string
		server, queue string // resources_default.walltime
		wantStart     int64  // 0: no estimate
	}{
		{"queue default", "", "01:00:00", 1000 + 3600},
		{"queue default over server default", "02:00:00", "00:10:00", 1000 + 600},
		{"server default only", "02:00:00", "", 1000 + 7200},
		{"no default: end unknown, no estimate", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := startedQueue("workq", 0, "")
			q.ResourcesDefault = map[string]string{}
			if tc.queue != "" {
				q.ResourcesDefault["walltime"] = tc.queue
			}
			cfg := model.ServerConfig{
				Queues:           map[string]model.QueueConfig{"workq": q},
				ResourcesDefault: map[string]string{},
				Sched:            model.SchedConfig{StrictOrdering: true, BackfillDepth: 1},
			}
			if tc.server != "" {
				cfg.ResourcesDefault["walltime"] = tc.server
			}
			m := newMemFSM(t, cfg)
			m.registerHost("n1", "2")
			first := m.submit("workq", "1:ncpus=2", nil, 0, 100)
			if plan := m.schedule(1000); len(plan.Runs) != 1 || plan.Runs[0].JobID != first {
				t.Fatalf("first cycle ran %+v, want %s", plan.Runs, first)
			}
			second := m.submit("workq", "1:ncpus=2", nil, 0, 1001)
			plan := m.schedule(1002)
			var got int64
			for _, e := range plan.Estimates {
				if e.JobID == second && e.Top {
					got = e.Start
				}
			}
			if got != tc.wantStart {
				t.Fatalf("estimated start of %s = %d, want %d (estimates %+v)", second, got, tc.wantStart, plan.Estimates)
			}
		})
	}
}
