package scheduler

import (
	"fmt"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

const now = 1_000_000

func walltime(secs int64) jobOpt {
	return func(j *model.Job) {
		if j.ResourceList == nil {
			j.ResourceList = map[string]string{}
		}
		j.ResourceList["walltime"] = model.FormatDuration(secs)
	}
}

// runningOn makes a running job holding ncpus on each named vnode since
// stime, and marks the vnodes; walltime < 0 leaves it without one.
func runningOn(vs map[string]*model.Vnode, id string, stime, wall int64, ncpus float64, excl bool, names ...string) *model.Job {
	j := &model.Job{ID: id, State: model.StateRunning, Queue: "workq", Stime: stime, ResourceList: map[string]string{}, JobExt: &model.JobExt{Exclusive: excl}}
	if wall >= 0 {
		j.ResourceList["walltime"] = model.FormatDuration(wall)
	}
	for _, n := range names {
		v := vs[n]
		running(id, ncpus)(v)
		if excl {
			exclusiveJob(id)(v)
		}
		j.Exec = append(j.Exec, model.ExecChunk{Shares: []model.VnodeShare{{Vnode: n, Host: v.Host, Amounts: map[string]float64{"ncpus": ncpus}}}})
	}
	return j
}

func byName(vs []*model.Vnode) map[string]*model.Vnode {
	m := map[string]*model.Vnode{}
	for _, v := range vs {
		m[v.Name] = v
	}
	return m
}

func strict(s *Snapshot, depth int) *Snapshot {
	s.Now = now
	s.Config.StrictOrdering = true
	s.Config.BackfillDepth = depth
	return s
}

func estimates(p *Plan) map[string]model.JobEstimate {
	out := map[string]model.JobEstimate{}
	for _, e := range p.Estimates {
		out[e.JobID] = e
	}
	return out
}

func estExec(e model.JobEstimate) string { return execOf(model.RunDecision{Exec: e.Exec}) }

func TestStrictOrdering(t *testing.T) {
	type want struct {
		run     string // exec when the job runs
		comment string
		start   int64  // top-job start offset from now; 0 = not a top job
		on      string // estimated exec
	}
	cases := []struct {
		name  string
		depth int
		noDef bool // no default walltime
		setup func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job)
		want  map[int64]want
	}{{
		name: "backfill_depth 0: nothing after a blocked job starts", depth: 0,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=4")}
			r := runningOn(byName(vs), "90.svr", now-10, 100, 2, false, "n1")
			return vs, []*model.Job{r}, []*model.Job{
				job(t, 1, "1:ncpus=4", "", walltime(100)),
				job(t, 2, "1:ncpus=1", "", walltime(10)),
			}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 4 A: 2 T: 4)"},
			2: {comment: "Not Running: Job would break strict sorted order"},
		},
	}, {
		name: "EASY: top job planned at the release, short job backfills, long one conflicts", depth: 1,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=4")}
			r := runningOn(byName(vs), "90.svr", now-10, 110, 2, false, "n1") // ends now+100
			return vs, []*model.Job{r}, []*model.Job{
				job(t, 1, "1:ncpus=4", "", walltime(100)),
				job(t, 2, "1:ncpus=2", "", walltime(200)),
				job(t, 3, "1:ncpus=2", "", walltime(100)),
				job(t, 4, "1:ncpus=1", "", walltime(10)),
			}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 4 A: 2 T: 4)", start: 100, on: "(n1:ncpus=4)"},
			2: {comment: "Not Running: Job would conflict with reservation or top job"},
			3: {run: "(n1:ncpus=2)"},
			4: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 1 A: 0 T: 4)"},
		},
	}, {
		name: "leftover capacity on a top job's vnode may be used for any time", depth: 1,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=8")}
			r := runningOn(byName(vs), "90.svr", now, 50, 6, false, "n1")
			return vs, []*model.Job{r}, []*model.Job{
				job(t, 1, "1:ncpus=6", "", walltime(100)),
				job(t, 2, "1:ncpus=2", "", walltime(1000)),
			}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 6 A: 2 T: 8)", start: 50, on: "(n1:ncpus=6)"},
			2: {run: "(n1:ncpus=2)"},
		},
	}, {
		name: "depth 2: the second top job plans around the first", depth: 2,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")}
			m := byName(vs)
			r1 := runningOn(m, "90.svr", now, 100, 2, false, "n1")
			r2 := runningOn(m, "91.svr", now, 300, 2, false, "n2")
			return vs, []*model.Job{r1, r2}, []*model.Job{
				job(t, 1, "1:ncpus=2", "", walltime(500)),
				job(t, 2, "1:ncpus=2", "", walltime(100)),
				job(t, 3, "1:ncpus=2", "", walltime(100)),
			}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 0 T: 4)", start: 100, on: "(n1:ncpus=2)"},
			2: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 0 T: 4)", start: 300, on: "(n2:ncpus=2)"},
			3: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 0 T: 4)"},
		},
	}, {
		name: "exclusive top job waits for every job on the vnode", depth: 1,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=4")}
			m := byName(vs)
			r1 := runningOn(m, "90.svr", now, 100, 1, false, "n1")
			r2 := runningOn(m, "91.svr", now, 200, 1, false, "n1")
			return vs, []*model.Job{r1, r2}, []*model.Job{
				job(t, 1, "1:ncpus=1", "excl", walltime(10)),
				job(t, 2, "1:ncpus=1", "", walltime(150)),
				job(t, 3, "1:ncpus=1", "", walltime(250)),
			}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Job is requesting an exclusive node and node is in use", start: 200, on: "(n1:ncpus=1)"},
			2: {run: "(n1:ncpus=1)"},
			3: {comment: "Not Running: Job would conflict with reservation or top job"},
		},
	}, {
		name: "a never-run job is not a top job", depth: 1,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=2")}
			r := runningOn(byName(vs), "90.svr", now, 100, 2, false, "n1")
			return vs, []*model.Job{r}, []*model.Job{
				job(t, 1, "1:ncpus=3", "", walltime(10)),
				job(t, 2, "1:ncpus=1", "", walltime(10)),
			}
		},
		want: map[int64]want{
			1: {comment: "Can Never Run: Insufficient amount of resource: ncpus (R: 3 A: 0 T: 2)"},
			2: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 1 A: 0 T: 2)", start: 100, on: "(n1:ncpus=1)"},
		},
	}, {
		name: "running job without walltime ends at the default walltime", depth: 1,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=2")}
			r := runningOn(byName(vs), "90.svr", now-100, -1, 2, false, "n1") // default 3600
			return vs, []*model.Job{r}, []*model.Job{job(t, 1, "1:ncpus=2", "", walltime(10))}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 0 T: 2)", start: 3500, on: "(n1:ncpus=2)"},
		},
	}, {
		name: "queued job without walltime holds its planned vnodes for ever", depth: 1, noDef: true,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")}
			r := runningOn(byName(vs), "90.svr", now, 100, 2, false, "n1", "n2")
			q1 := job(t, 1, "2:ncpus=2", "")
			q1.Queue = "nodefault"
			return vs, []*model.Job{r}, []*model.Job{q1}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 4 A: 0 T: 4)", start: 100, on: "(n1:ncpus=2)+(n2:ncpus=2)"},
		},
	}, {
		name: "no walltime and no default: a running job's end is unknown, so no estimate", depth: 1, noDef: true,
		setup: func(t *testing.T) ([]*model.Vnode, []*model.Job, []*model.Job) {
			vs := []*model.Vnode{vnode("n1", "ncpus=2")}
			r := runningOn(byName(vs), "90.svr", now, -1, 2, false, "n1")
			return vs, []*model.Job{r}, []*model.Job{job(t, 1, "1:ncpus=2", "", walltime(10))}
		},
		want: map[int64]want{
			1: {comment: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 0 T: 2)"},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs, running, queued := tc.setup(t)
			s := strict(snapshot(vs, queued...), tc.depth)
			s.Running = running
			if !tc.noDef {
				s.Config.DefaultWalltime = 3600
			}
			s.Queues["nodefault"] = Queue{Name: "nodefault"}
			p := Schedule(s)
			gotRuns, gotComments, gotEst := runs(p), comments(p), estimates(p)
			for seq, w := range tc.want {
				id := jobID(seq)
				if got := gotRuns[id]; got != w.run {
					t.Errorf("job %d: run %q, want %q (comment %q)", seq, got, w.run, gotComments[id].Comment)
				}
				if got := gotComments[id].Comment; got != w.comment {
					t.Errorf("job %d: comment %q, want %q", seq, got, w.comment)
				}
				e, top := gotEst[id]
				if w.start == 0 {
					if top && e.Top {
						t.Errorf("job %d: unexpected top job at +%d on %s", seq, e.Start-now, estExec(e))
					}
					continue
				}
				if !top || !e.Top || e.Start != now+w.start || estExec(e) != w.on {
					t.Errorf("job %d: estimate %+v (+%d on %s), want +%d on %s", seq, e, e.Start-now, estExec(e), w.start, w.on)
				}
			}
		})
	}
}

func TestQueueBackfillDepthZeroBlocksOnlyItsQueue(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=4")}
	r := runningOn(byName(vs), "90.svr", now, 100, 2, false, "n1")
	zero := 0
	s := strict(snapshot(vs,
		job(t, 1, "1:ncpus=4", "", walltime(10), inQueue("strictq")),
		job(t, 2, "1:ncpus=1", "", walltime(10), inQueue("strictq")),
		job(t, 3, "1:ncpus=1", "", walltime(10)),
	), 1)
	s.Running = []*model.Job{r}
	s.Queues["strictq"] = Queue{Name: "strictq", BackfillDepth: &zero}
	p := Schedule(s)
	if got := comments(p)[jobID(2)].Comment; got != "Not Running: Job would break strict sorted order" {
		t.Errorf("job 2 in the blocked queue: %q", got)
	}
	if _, ok := runs(p)[jobID(3)]; !ok {
		t.Errorf("job 3 in another queue should run: %q", comments(p)[jobID(3)].Comment)
	}
	if len(p.Estimates) != 0 {
		t.Errorf("queue depth 0 makes no top job: %+v", p.Estimates)
	}
}

func TestPerQueueDepthCountsSeparately(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2")}
	r := runningOn(byName(vs), "90.svr", now, 100, 2, false, "n1")
	one := 1
	s := strict(snapshot(vs,
		job(t, 1, "1:ncpus=1", "", walltime(10)),
		job(t, 2, "1:ncpus=1", "", walltime(10)),
		job(t, 3, "1:ncpus=1", "", walltime(10), inQueue("own")),
		job(t, 4, "1:ncpus=1", "", walltime(10), inQueue("own")),
	), 1)
	s.Running = []*model.Job{r}
	s.Queues["own"] = Queue{Name: "own", BackfillDepth: &one}
	est := estimates(Schedule(s))
	for seq, top := range map[int64]bool{1: true, 2: false, 3: true, 4: false} {
		if est[jobID(seq)].Top != top {
			t.Errorf("job %d: top %v, want %v", seq, est[jobID(seq)].Top, top)
		}
	}
}

func TestFormulaThreshold(t *testing.T) {
	f, err := policy.ParseFormula("ncpus")
	if err != nil {
		t.Fatal(err)
	}
	th := 1.0
	s := snapshot([]*model.Vnode{vnode("n1", "ncpus=8")}, job(t, 1, "1:ncpus=1", ""), job(t, 2, "1:ncpus=2", ""))
	s.Config.JobSortFormula, s.Config.FormulaThreshold = f, &th
	p := Schedule(s)
	if got := comments(p)[jobID(1)].Comment; got != "Not Running: Job is under job_sort_formula threshold value" {
		t.Errorf("job 1: %q", got)
	}
	if _, ok := runs(p)[jobID(2)]; !ok {
		t.Error("job 2 is above the threshold and should run")
	}
}

func TestTopJobCleared(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2")}
	r := runningOn(byName(vs), "90.svr", now, 100, 2, false, "n1")
	was := func(j *model.Job) {
		j.SetTopJob(true)
		j.SetEstStart(now + 100)
		j.SetEstExec([]model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}}})
	}
	s := strict(snapshot(vs, job(t, 1, "1:ncpus=1", "", walltime(10)), job(t, 2, "1:ncpus=2", "", walltime(10), was)), 1)
	s.Running = []*model.Job{r}
	est := estimates(Schedule(s))
	if e, ok := est[jobID(2)]; !ok || e.Top || e.Start != 0 || e.Exec != nil {
		t.Errorf("job 2 lost its slot to job 1 and should be cleared: %+v", e)
	}
	if !est[jobID(1)].Top {
		t.Error("job 1 should be the top job")
	}
}

// A top job's planned start never moves later because of lower-priority
// work, across cycles: lower jobs keep arriving and backfilling, and each
// cycle feeds the plan back as the server would.
func TestEstimateNeverMovesLater(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4"), vnode("n3", "ncpus=4")}
	m := byName(vs)
	active := []*model.Job{
		runningOn(m, "80.svr", now, 300, 4, false, "n1"),
		runningOn(m, "81.svr", now, 500, 2, false, "n2"),
		runningOn(m, "82.svr", now, 700, 3, false, "n3"),
	}
	top := job(t, 1, "2:ncpus=4", "", walltime(1000))
	queued := []*model.Job{top}
	clock := int64(now)
	var first int64
	seq := int64(100)
	for cycle := 0; cycle < 12; cycle++ {
		// Lower-priority work of every shape arrives each cycle.
		for _, sel := range []string{"1:ncpus=1", "1:ncpus=2", "2:ncpus=1", "1:ncpus=4"} {
			seq++
			queued = append(queued, job(t, seq, sel, "", walltime(50+seq%7*60)))
		}
		s := strict(snapshot(vs, queued...), 1)
		s.Now = clock
		s.Running = active
		p := Schedule(s)
		est := estimates(p)
		// Apply the plan as the server does: estimates to queued jobs, runs
		// start on their vnodes.
		for i, j := range queued {
			if e, ok := est[j.ID]; ok {
				c := *j
				c.SetTopJob(e.Top)
				c.SetEstStart(e.Start)
				c.SetEstExec(e.Exec)
				queued[i] = &c
			}
		}
		started := map[string]bool{}
		for _, d := range p.Runs {
			started[d.JobID] = true
			for _, j := range queued {
				if j.ID != d.JobID {
					continue
				}
				r := *j
				r.State, r.Stime, r.Exec = model.StateRunning, clock, d.Exec
				for _, ec := range d.Exec {
					for _, sh := range ec.Shares {
						running(r.ID, sh.Amounts["ncpus"])(m[sh.Vnode])
					}
				}
				active = append(active, &r)
			}
		}
		var left []*model.Job
		for _, j := range queued {
			if !started[j.ID] {
				left = append(left, j)
			}
		}
		queued = left
		if started[top.ID] {
			if clock > first {
				t.Fatalf("cycle %d: top job started at +%d, later than first estimate +%d", cycle, clock-now, first-now)
			}
			return
		}
		cur := queued[0]
		if cur.ID != top.ID || !cur.TopJob() {
			t.Fatalf("cycle %d: %s is not the top job", cycle, top.ID)
		}
		if first == 0 {
			first = cur.EstStart()
		}
		if cur.EstStart() > first {
			t.Fatalf("cycle %d: estimate moved from +%d to +%d", cycle, first-now, cur.EstStart()-now)
		}
		// Advance to the next end of a running job and drop finished ones.
		next := int64(forever)
		for _, r := range active {
			wt, _ := model.ParseDuration(r.ResourceList["walltime"])
			next = min(next, r.Stime+wt)
		}
		clock = next
		var still []*model.Job
		for _, r := range active {
			wt, _ := model.ParseDuration(r.ResourceList["walltime"])
			if r.Stime+wt > clock {
				still = append(still, r)
				continue
			}
			for _, ec := range r.Exec {
				for _, sh := range ec.Shares {
					v := m[sh.Vnode]
					v.Assigned["ncpus"] -= sh.Amounts["ncpus"]
					delete(v.Jobs, r.ID)
					v.RecomputeBusy()
				}
			}
		}
		active = still
		if testing.Verbose() {
			fmt.Printf("cycle %d: clock +%d, estimate +%d\n", cycle, clock-now, cur.EstStart()-now)
		}
	}
	t.Fatal("top job never started")
}
