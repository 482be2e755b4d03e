package schedglue

import (
	"slices"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/scheduler"
)

// TestMaxRunLimits: the server's and queues' max_run limits decide which
// queued jobs a cycle starts, counting the jobs already running; the jobs
// kept back stay queued, untouched.
func TestMaxRunLimits(t *testing.T) {
	const now = 1000
	for _, tc := range []struct {
		name     string
		srv      string            // server max_run
		queues   map[string]string // queue -> max_run (every queue started)
		running  []job             // run by a first cycle, before the limit is set
		jobs     []job
		want     []bool   // per job: started
		why      []string // per job kept back: its comment after "Not Running: "
		wantExec []string
	}{
		{
			name: "no limit: both start", jobs: []job{{sel: "1:ncpus=1"}, {sel: "1:ncpus=1"}},
			want: []bool{true, true}, wantExec: []string{"(n1:ncpus=1)", "(n1:ncpus=1)"},
		},
		{
			name: "server PBS_ALL=1", srv: "[o:PBS_ALL=1]", jobs: []job{{sel: "1:ncpus=1"}, {sel: "1:ncpus=1"}},
			want: []bool{true, false}, why: []string{"", "Server job limit has been reached."},
		},
		{
			name: "server PBS_ALL=1 keeps the higher priority job", srv: "[o:PBS_ALL=1]",
			jobs: []job{{sel: "1:ncpus=1"}, {sel: "1:ncpus=1", prio: 10}},
			want: []bool{false, true}, why: []string{"Server job limit has been reached.", ""},
		},
		{
			name: "per-user generic limit", srv: "[u:PBS_GENERIC=1]",
			jobs: []job{{user: "alice", sel: "1:ncpus=1"}, {user: "alice", sel: "1:ncpus=1"}, {user: "bob", sel: "1:ncpus=1"}},
			want: []bool{true, false, true}, why: []string{"", "User has reached server running job limit.", ""},
		},
		{
			name: "per-group generic limit", srv: "[g:PBS_GENERIC=1]",
			jobs: []job{{sel: "1:ncpus=1"}, {sel: "1:ncpus=1"}},
			want: []bool{true, false}, why: []string{"", "Group has reached server running limit."},
		},
		{
			name: "a named user over the generic limit", srv: "[u:PBS_GENERIC=1],[u:alice=2]",
			jobs: []job{{user: "alice", sel: "1:ncpus=1"}, {user: "alice", sel: "1:ncpus=1"}, {user: "bob", sel: "1:ncpus=1"}, {user: "bob", sel: "1:ncpus=1"}},
			want: []bool{true, true, true, false}, why: []string{"", "", "", "User has reached server running job limit."},
		},
		{
			name: "a named user's own limit", srv: "[u:alice=1]",
			jobs: []job{{user: "alice", sel: "1:ncpus=1"}, {user: "alice", sel: "1:ncpus=1"}},
			want: []bool{true, false}, why: []string{"", "Server job limit reached for user alice"},
		},
		{
			name: "queue per-user limit", queues: map[string]string{"workq": "[u:PBS_GENERIC=1]"},
			jobs: []job{{user: "alice", sel: "1:ncpus=1"}, {user: "alice", sel: "1:ncpus=1"}},
			want: []bool{true, false}, why: []string{"", "User has reached queue workq running job limit."},
		},
		{
			name: "queue limit for a named group", queues: map[string]string{"workq": "[g:staff=1]"},
			jobs: []job{{group: "staff", sel: "1:ncpus=1"}, {group: "staff", sel: "1:ncpus=1"}},
			want: []bool{true, false}, why: []string{"", "Queue workq job limit reached for group staff"},
		},
		{
			name: "queue limit leaves other queues alone", queues: map[string]string{"workq": "[o:PBS_ALL=1]", "other": ""},
			jobs: []job{{sel: "1:ncpus=1"}, {sel: "1:ncpus=1"}, {queue: "other", sel: "1:ncpus=1"}},
			want: []bool{true, false, true}, why: []string{"", "Queue workq job limit has been reached.", ""},
		},
		{
			name: "running jobs count against the limit", srv: "[u:alice=1]",
			running: []job{{user: "alice", sel: "1:ncpus=1"}},
			jobs:    []job{{user: "alice", sel: "1:ncpus=1"}, {user: "bob", sel: "1:ncpus=1"}},
			want:    []bool{false, true}, why: []string{"Server job limit reached for user alice", ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := model.ServerConfig{Queues: map[string]model.QueueConfig{"workq": startedQueue("workq", 0, "")}}
			for q, lim := range tc.queues {
				cfg.Queues[q] = startedQueue(q, 0, lim)
			}
			f := newFixture(t, cfg)
			f.host("n1", "ncpus=8", "")
			for i, j := range tc.running {
				id := f.submit(j, int64(10+i))
				f.cycle(50)
				if got := f.seen(id).State; got != "R/41" {
					t.Fatalf("running job %s is %s", id, got)
				}
			}
			f.configure(func(c *model.ServerConfig) { c.MaxRun = tc.srv })
			var ids []string
			for i, j := range tc.jobs {
				ids = append(ids, f.submit(j, int64(100+i)))
			}
			f.cycle(now)
			for i, id := range ids {
				got := f.seen(id)
				want := seen{State: "Q/10"}
				if tc.why != nil && tc.why[i] != "" {
					want.Comment = "Not Running: " + tc.why[i]
				}
				if tc.want[i] {
					exec := "(n1:ncpus=1)"
					if tc.wantExec != nil {
						exec = tc.wantExec[i]
					}
					want = seen{State: "R/41", ExecVnode: exec, Comment: ran(now, exec)}
				}
				if got != want {
					t.Errorf("job %d (%s): %+v, want %+v", i, id, got, want)
				}
			}
		})
	}
}

// TestMaxRunCandidatesFollowTheJobOrder: with a max_run limit that lets
// only some queued jobs be candidates, the ones kept are the ones the
// scheduler's own order (job_sort_key, job_sort_formula, round_robin,
// by_queue) puts first, not merely the highest priority or the oldest.
func TestMaxRunCandidatesFollowTheJobOrder(t *testing.T) {
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
			jobs: []job{{sel: "1:ncpus=1"}, {sel: "1:ncpus=2", prio: 5}},
			want: []int{1},
		},
		{
			name: "job_sort_key ncpus HIGH", maxRun: "[o:PBS_ALL=1]",
			sched: model.SchedConfig{JobSortKeys: []string{"ncpus HIGH"}},
			jobs:  []job{{sel: "1:ncpus=1", prio: 5}, {sel: "1:ncpus=4"}},
			want:  []int{1},
		},
		{
			name: "job_sort_key ncpus LOW", maxRun: "[o:PBS_ALL=2]",
			sched: model.SchedConfig{JobSortKeys: []string{"ncpus LOW"}},
			jobs:  []job{{sel: "1:ncpus=4"}, {sel: "1:ncpus=3"}, {sel: "1:ncpus=1"}},
			want:  []int{2, 1},
		},
		{
			name: "job_sort_formula", maxRun: "[o:PBS_ALL=1]",
			sched: model.SchedConfig{JobSortFormula: "ncpus * 10"},
			jobs:  []job{{sel: "1:ncpus=1", prio: 9}, {sel: "1:ncpus=2"}},
			want:  []int{1},
		},
		{
			name: "round_robin takes one job of each queue", maxRun: "[o:PBS_ALL=2]",
			queues: []model.QueueConfig{startedQueue("qa", 0, ""), startedQueue("qb", 0, "")},
			sched:  model.SchedConfig{RoundRobin: true},
			jobs:   []job{{queue: "qa", sel: "1:ncpus=1"}, {queue: "qa", sel: "1:ncpus=1"}, {queue: "qb", sel: "1:ncpus=1"}},
			want:   []int{0, 2},
		},
		{
			name: "by_queue", maxRun: "[o:PBS_ALL=1]",
			queues: []model.QueueConfig{startedQueue("lo", 1, ""), startedQueue("hi", 9, "")},
			sched:  model.SchedConfig{ByQueue: true},
			jobs:   []job{{queue: "lo", sel: "1:ncpus=1", prio: 100}, {queue: "hi", sel: "1:ncpus=1"}},
			want:   []int{1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := model.ServerConfig{MaxRun: tc.maxRun, Sched: tc.sched,
				Queues: map[string]model.QueueConfig{"workq": startedQueue("workq", 0, "")}}
			for _, q := range tc.queues {
				cfg.Queues[q.Name] = q
			}
			f := newFixture(t, cfg)
			var ids []string
			for i, j := range tc.jobs {
				ids = append(ids, f.submit(j, int64(100+i)))
			}
			in := Input(f.State(), 1000)
			var want []string
			for _, i := range tc.want {
				want = append(want, ids[i])
			}
			var got []string
			for _, j := range in.Queued {
				got = append(got, j.ID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("candidates = %v, want %v", got, want)
			}
			// The scheduler, given every job, would rank the same ones first.
			all := *in
			all.Queued = f.State().JobsInState(model.StateQueued)
			ranked := scheduler.JobOrder(&all).SortJobs(all.Queued)
			for i := range want {
				if ranked[i].ID != want[i] {
					t.Errorf("scheduler rank %d = %s, candidates kept %s", i, ranked[i].ID, want[i])
				}
			}
		})
	}
}
