package scheduler

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// laRunning is a running job on one vnode that started at stime and asks
// for walltime seconds.
func laRunning(id, vn string, stime, walltime int64) *model.Job {
	return &model.Job{ID: id, State: model.StateRunning, Stime: stime, Queue: "workq",
		ResourceList: map[string]string{"walltime": model.FormatDuration(walltime)},
		Exec:         []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: vn, Host: vn, Amounts: map[string]float64{"ncpus": 1}}}}}}
}

// TestLookaheadProvision: lookahead_provision's decisions over small
// clusters at now = 1000. Vnodes have one cpu; "busy" vnodes run a job
// whose walltime ends at the given time.
func TestLookaheadProvision(t *testing.T) {
	type vn struct {
		name, aoe string
		prio      int
		busyUntil int64 // 0: free
	}
	for _, tc := range []struct {
		name      string
		policy    string
		vnodes    []vn
		jobs      []string // selects, in queue order
		est       int64    // learned estimate of every AOE (0: the default 600)
		inFlight  int      // provisioning operations under way (max_concurrent_provision 5)
		wantRun   string   // job 1's decision, "" when it must not start
		wantMsg   string   // part of job 1's comment when it waits
		wantStart int64    // job 1's top-job estimated start when it waits
	}{
		{name: "a free vnode on the AOE is used as it is, whatever the node order",
			vnodes:  []vn{{"n1", "B", 10, 0}, {"n2", "A", 0, 0}},
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantRun: "(n2)"},
		{name: "a short wait for the AOE beats a reimage",
			vnodes: []vn{{"n1", "A", 0, 1100}, {"n2", "B", 0, 0}}, est: 600,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantMsg: "Waiting for vnodes on AOE A (expected in 100 s", wantStart: 1100},
		{name: "a long wait loses to a reimage",
			vnodes: []vn{{"n1", "A", 0, 11000}, {"n2", "B", 0, 0}}, est: 60,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantRun: "(n2:aoe=A)"},
		{name: "aggressive_provision reimages even for a short wait", policy: AggressiveProvision,
			vnodes: []vn{{"n1", "A", 0, 1100}, {"n2", "B", 0, 0}}, est: 600,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantRun: "(n2:aoe=A)"},
		{name: "avoid_provision reimages even for a short wait", policy: AvoidProvision,
			vnodes: []vn{{"n1", "A", 0, 1100}, {"n2", "B", 0, 0}}, est: 600,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantRun: "(n2:aoe=A)"},
		{name: "provisioning weighs more than waiting: 1000 s of wait beat 300 s of reimage",
			vnodes: []vn{{"n1", "A", 0, 2000}, {"n2", "B", 0, 0}}, est: 300,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantMsg: "expected in 1000 s, a reimage costs 300 s", wantStart: 2000},
		{name: "2000 s of wait lose to a 300 s reimage",
			vnodes: []vn{{"n1", "A", 0, 3000}, {"n2", "B", 0, 0}}, est: 300,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantRun: "(n2:aoe=A)"},
		{name: "a full provisioning queue makes waiting cheaper",
			vnodes: []vn{{"n1", "A", 0, 3000}, {"n2", "B", 0, 0}}, est: 300, inFlight: 10,
			jobs:    []string{"1:ncpus=1:aoe=A"},
			wantMsg: "a reimage costs 900 s", wantStart: 3000},
		{name: "the vnode whose AOE nobody queued wants is reimaged",
			vnodes: []vn{{"n1", "A", 0, 11000}, {"n2", "B", 10, 0}, {"n3", "C", 0, 0}}, est: 60,
			jobs:    []string{"1:ncpus=1:aoe=A", "2:ncpus=1:aoe=B"},
			wantRun: "(n3:aoe=A)"},
		{name: "avoid_provision takes the node order instead", policy: AvoidProvision,
			vnodes: []vn{{"n1", "A", 0, 11000}, {"n2", "B", 10, 0}, {"n3", "C", 0, 0}}, est: 60,
			jobs:    []string{"1:ncpus=1:aoe=A", "2:ncpus=1:aoe=B"},
			wantRun: "(n2:aoe=A)"},
		{name: "a job larger than its AOE reimages only what it lacks",
			vnodes: []vn{{"n1", "A", 0, 0}, {"n2", "A", 0, 0}, {"n3", "B", 5, 0}, {"n4", "C", 9, 0}}, est: 60,
			jobs:    []string{"3:ncpus=1:aoe=A"},
			wantRun: "(n1)+(n2)+(n4:aoe=A)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vs []*model.Vnode
			var busy []*model.Job
			for i, v := range tc.vnodes {
				opts := []vnodeOpt{onAOE(v.aoe), provEnabled(), prio(v.prio)}
				if v.busyUntil > 0 {
					id := jobID(int64(100 + i))
					opts = append(opts, running(id, 1))
					busy = append(busy, laRunning(id, v.name, 1000, v.busyUntil-1000))
				}
				vs = append(vs, vnode(v.name, "ncpus=1,aoe=A,B,C", opts...))
			}
			var jobs []*model.Job
			for i, sel := range tc.jobs {
				j := job(t, int64(i+1), sel, "")
				j.ResourceList = map[string]string{"walltime": "100"}
				jobs = append(jobs, j)
			}
			policy := tc.policy
			if policy == "" {
				policy = LookaheadProvision
			}
			s := provSnap(policy, vs, jobs...)
			s.Now, s.Running = 1000, busy
			s.Config.StrictOrdering, s.Config.BackfillDepth = true, 1
			s.Provision.InFlight, s.Provision.MaxConcurrent = tc.inFlight, 5
			if tc.est > 0 {
				s.Provision.Estimates = map[string]int64{"A": tc.est, "B": tc.est, "C": tc.est}
			}
			p := Schedule(s)
			got := ""
			for _, d := range p.Runs {
				if d.JobID == jobID(1) {
					got = provExec(d)
				}
			}
			if got != tc.wantRun {
				t.Fatalf("job 1 ran %q, want %q (comments %+v)", got, tc.wantRun, p.Comments)
			}
			if tc.wantMsg == "" {
				return
			}
			if c := comments(p)[jobID(1)].Comment; !strings.Contains(c, tc.wantMsg) {
				t.Errorf("comment %q, want it to contain %q", c, tc.wantMsg)
			}
			var est *model.JobEstimate
			for i := range p.Estimates {
				if p.Estimates[i].JobID == jobID(1) {
					est = &p.Estimates[i]
				}
			}
			if est == nil || est.Start != tc.wantStart || len(est.Exec) != 1 || est.Exec[0].Shares[0].Vnode != "n1" {
				t.Errorf("estimate %+v, want start %d on n1 (the AOE's vnode)", est, tc.wantStart)
			}
		})
	}
}
