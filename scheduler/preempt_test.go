package scheduler

import (
	"fmt"
	"slices"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

func TestChooseVictims(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int // cpus each victim frees, in rank order
		free  int   // free before any victim
		need  int
		want  []int
		ok    bool
	}{
		{"first suffices", []int{2, 2, 2}, 0, 2, []int{0}, true},
		{"two needed", []int{1, 1, 4}, 0, 2, []int{0, 1}, true},
		{"early ones dropped when a later one alone suffices", []int{1, 1, 4}, 0, 4, []int{2}, true},
		{"free counts", []int{1, 1}, 1, 2, []int{0}, true},
		{"not enough", []int{1, 1}, 0, 3, nil, false},
		{"none", nil, 0, 1, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := tt.free
			freed := make([]bool, len(tt.sizes))
			got, ok := chooseVictims(len(tt.sizes),
				func(i int) { have += tt.sizes[i]; freed[i] = true },
				func(i int) { have -= tt.sizes[i]; freed[i] = false },
				func() bool { return have >= tt.need })
			if ok != tt.ok || !slices.Equal(got, tt.want) {
				t.Fatalf("chooseVictims = %v %v, want %v %v", got, ok, tt.want, tt.ok)
			}
			for i, f := range freed {
				if f != slices.Contains(got, i) {
					t.Fatalf("victim %d left freed=%v, chosen %v", i, f, got)
				}
			}
		})
	}
}

func TestRankVictims(t *testing.T) {
	v := func(id string, level int, cost, start int64, pending bool) victim {
		return victim{job: &model.Job{ID: id}, level: level, cost: cost, start: start, pending: pending}
	}
	vs := []victim{
		v("old-normal", 3000, 0, 100, false),
		v("new-normal", 3000, 0, 500, false),
		v("soft", 1000, 0, 50, false),
		v("needs-reimage", 3000, 600, 900, false),
		v("checkpointing", 3000, 0, 10, true),
	}
	rankVictims(vs)
	var got []string
	for _, x := range vs {
		got = append(got, x.job.ID)
	}
	want := []string{"checkpointing", "soft", "new-normal", "old-normal", "needs-reimage"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

func TestPreemptMethod(t *testing.T) {
	steps, _ := policy.ParsePreemptOrder("SCR 50 R")
	rerun := &model.Job{Rerun: true, Stime: 1000}
	noRerun := &model.Job{Stime: 1000}
	noCkpt := &model.Job{Rerun: true, Checkpt: "n", Stime: 1000}
	deleteOnly, _ := policy.ParsePreemptOrder("D")
	tests := []struct {
		name      string
		steps     []policy.PreemptStep
		j         *model.Job
		wall, now int64
		noSuspend bool
		want      string
	}{
		{"suspend first", steps, rerun, 100, 1010, false, "S"},
		{"reimaged host: checkpoint", steps, rerun, 100, 1010, true, "C"},
		{"no checkpoint: requeue", steps, noCkpt, 100, 1010, true, "R"},
		{"not rerunnable, reimaged: nothing", steps, noRerun, 100, 1010, true, ""},
		{"less than half left: requeue only", steps, rerun, 100, 1060, false, "R"},
		{"no walltime: first step", steps, rerun, -1, 999999, false, "S"},
		{"delete", deleteOnly, noRerun, 100, 1010, true, "D"},
	}
	for _, tt := range tests {
		if got := preemptMethod(tt.steps, tt.j, tt.wall, tt.now, tt.noSuspend); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// preemptSnap is a snapshot with preemption on (PBS defaults), queue
// workq (priority 0) and express (priority 200).
func preemptSnap(t *testing.T, order string, vnodes []*model.Vnode, queued []*model.Job, run ...*model.Job) *Snapshot {
	t.Helper()
	s := snapshot(vnodes, queued...)
	s.Now = 10000
	s.Queues["express"] = Queue{Name: "express", Priority: 200}
	prio, _ := policy.ParsePreemptPrio(model.DefaultPreemptPrio)
	steps, err := policy.ParsePreemptOrder(order)
	if err != nil {
		t.Fatal(err)
	}
	s.Config.Preempt = &PreemptPolicy{Prio: prio, Order: steps, QueuePrio: 150}
	s.Running = run
	return s
}

// victimOn is a running job (substate 42) holding ncpus on each vnode
// given, started at stime; it also books the job on the vnodes.
func victimOn(seq int64, stime int64, ncpus float64, vs ...*model.Vnode) *model.Job {
	j := &model.Job{ID: jobID(seq), Seq: seq, Queue: "workq", State: model.StateRunning, Substate: model.SubRunning,
		Stime: stime, Rerun: true}
	for _, v := range vs {
		j.Exec = append(j.Exec, model.ExecChunk{Shares: []model.VnodeShare{{Vnode: v.Name, Host: v.Host, Amounts: map[string]float64{"ncpus": ncpus}}}})
		running(j.ID, ncpus)(v)
	}
	return j
}

func preempts(p *Plan) string {
	var out []string
	for _, x := range p.Preempts {
		out = append(out, fmt.Sprintf("%s:%s", x.JobID, x.Method))
	}
	return fmt.Sprint(out)
}

func TestExpressPreemptsMostRecentlyStarted(t *testing.T) {
	n1, n2 := vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")
	old := victimOn(1, 100, 2, n1)
	young := victimOn(2, 5000, 2, n2)
	ex := job(t, 3, "1:ncpus=2", "", inQueue("express"))
	normal := job(t, 4, "1:ncpus=2", "")
	p := Schedule(preemptSnap(t, "SCR", []*model.Vnode{n1, n2}, []*model.Job{normal, ex}, old, young))
	if got := preempts(p); got != fmt.Sprint([]string{young.ID + ":S"}) {
		t.Fatalf("preempts %s, want the most recently started job suspended", got)
	}
	if r := runs(p); len(r) != 1 || r[ex.ID] != "(n2:ncpus=2)" {
		t.Fatalf("runs %v, want the express job on n2", r)
	}
	if c := comments(p)[normal.ID]; c.Comment == "" {
		t.Fatalf("normal job got no comment; a normal job must not preempt")
	}
}

func TestNormalJobDoesNotPreempt(t *testing.T) {
	n1 := vnode("n1", "ncpus=2")
	r := victimOn(1, 100, 2, n1)
	p := Schedule(preemptSnap(t, "SCR", []*model.Vnode{n1}, []*model.Job{job(t, 2, "1:ncpus=1", "")}, r))
	if len(p.Preempts) != 0 || len(p.Runs) != 0 {
		t.Fatalf("preempts %s runs %v, want nothing", preempts(p), runs(p))
	}
}

func TestPreemptOrderMethods(t *testing.T) {
	for _, tt := range []struct {
		order, want string
		rerun       bool
		waits       bool
	}{
		{"R", "R", true, false},
		{"RD", "D", false, false},
		{"C", "C", true, true},
		{"D", "D", true, false},
	} {
		n1 := vnode("n1", "ncpus=2")
		r := victimOn(1, 100, 2, n1)
		r.Rerun = tt.rerun
		ex := job(t, 2, "1:ncpus=2", "", inQueue("express"))
		p := Schedule(preemptSnap(t, tt.order, []*model.Vnode{n1}, []*model.Job{ex}, r))
		if got := preempts(p); got != fmt.Sprint([]string{r.ID + ":" + tt.want}) {
			t.Errorf("order %s: preempts %s, want %s", tt.order, got, tt.want)
		}
		if started := len(p.Runs) == 1; started == tt.waits {
			t.Errorf("order %s: runs %v (waits for checkpoint: %v)", tt.order, runs(p), tt.waits)
		}
		if tt.waits && comments(p)[ex.ID].Comment != prefixNotRunning+msgPreemptWait {
			t.Errorf("order %s: comment %q", tt.order, comments(p)[ex.ID].Comment)
		}
	}
}

func TestOnlyNeededVictims(t *testing.T) {
	// Two 1-cpu victims on n1 and one 4-cpu on n2; the express job needs 4
	// cpus on one vnode. The young small jobs come first in rank order but
	// are useless: only the n2 job is preempted.
	n1, n2 := vnode("n1", "ncpus=2"), vnode("n2", "ncpus=4")
	a := victimOn(1, 9000, 1, n1)
	b := victimOn(2, 9001, 1, n1)
	c := victimOn(3, 100, 4, n2)
	ex := job(t, 4, "1:ncpus=4", "", inQueue("express"))
	p := Schedule(preemptSnap(t, "S", []*model.Vnode{n1, n2}, []*model.Job{ex}, a, b, c))
	if got := preempts(p); got != fmt.Sprint([]string{c.ID + ":S"}) {
		t.Fatalf("preempts %s, want only %s", got, c.ID)
	}
}

func TestSuspendedResumedWhenFree(t *testing.T) {
	n1 := vnode("n1", "ncpus=2")
	s := &model.Job{ID: jobID(1), Queue: "workq", State: model.StateSuspended, Substate: model.SubSchedSuspended,
		Exec: []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}}}}
	n1.Jobs = map[string]int{s.ID: 2} // its cpus were given back at suspension
	q := job(t, 2, "1:ncpus=2", "")
	p := Schedule(preemptSnap(t, "S", []*model.Vnode{n1}, []*model.Job{q}, s))
	if !slices.Equal(p.Resumes, []string{s.ID}) || len(p.Runs) != 0 {
		t.Fatalf("resumes %v runs %v, want the suspended job resumed before the normal job", p.Resumes, runs(p))
	}
	// An express job queued is served first: no resume.
	ex := job(t, 3, "1:ncpus=2", "", inQueue("express"))
	p = Schedule(preemptSnap(t, "S", []*model.Vnode{n1}, []*model.Job{q, ex}, s))
	if len(p.Resumes) != 0 || runs(p)[ex.ID] == "" {
		t.Fatalf("resumes %v runs %v, want the express job run and no resume", p.Resumes, runs(p))
	}
}

func TestAOEPreemptorAvoidsUselessAndCostlyVictims(t *testing.T) {
	// n1 cannot run AOE A at all, n2 could be reimaged to A, n3 runs A.
	n1 := vnode("n1", "ncpus=2,aoe=B", onAOE("B"))
	n2 := vnode("n2", "ncpus=2,aoe=A,B", onAOE("B"), provEnabled())
	n3 := vnode("n3", "ncpus=2,aoe=A,B", onAOE("A"), provEnabled())
	j1 := victimOn(1, 9000, 2, n1) // youngest, but useless to the preemptor
	j2 := victimOn(2, 8000, 2, n2)
	j3 := victimOn(3, 100, 2, n3) // oldest, but its vnode already runs A
	ex := job(t, 4, "1:ncpus=2:aoe=A", "", inQueue("express"))
	s := preemptSnap(t, "SCR", []*model.Vnode{n1, n2, n3}, []*model.Job{ex}, j1, j2, j3)
	s.Provision = ProvisionInfo{Enabled: true}
	p := Schedule(s)
	if got := preempts(p); got != fmt.Sprint([]string{j3.ID + ":S"}) {
		t.Fatalf("preempts %s, want %s suspended (no reimaging)", got, j3.ID)
	}
	// Without n3, the reimageable n2 is used, and its job is not
	// suspended (a reimage would destroy it) but checkpointed.
	s = preemptSnap(t, "SCR", []*model.Vnode{n1, n2}, []*model.Job{ex}, j1, j2)
	s.Provision = ProvisionInfo{Enabled: true}
	p = Schedule(s)
	if got := preempts(p); got != fmt.Sprint([]string{j2.ID + ":C"}) {
		t.Fatalf("preempts %s, want %s checkpointed", got, j2.ID)
	}
	s = preemptSnap(t, "SR", []*model.Vnode{n1, n2}, []*model.Job{ex}, j1, j2)
	s.Provision = ProvisionInfo{Enabled: true}
	p = Schedule(s)
	if got, r := preempts(p), runs(p); got != fmt.Sprint([]string{j2.ID + ":R"}) || len(r) != 1 {
		t.Fatalf("preempts %s runs %v, want %s requeued and the job run with provisioning", got, r, j2.ID)
	}
	if provExec(p.Runs[0]) != "(n2:aoe=A)" {
		t.Fatalf("exec %s, want n2 provisioned", provExec(p.Runs[0]))
	}
}

func TestSoftLimitClassPreemptedByNormal(t *testing.T) {
	n1, n2 := vnode("n1", "ncpus=1"), vnode("n2", "ncpus=1")
	over := victimOn(1, 5000, 1, n1)
	under := victimOn(2, 9000, 1, n2)
	q := job(t, 3, "1:ncpus=1", "")
	s := preemptSnap(t, "R", []*model.Vnode{n1, n2}, []*model.Job{q}, over, under)
	s.Config.Preempt.Prio, _ = policy.ParsePreemptPrio("express_queue, normal_jobs, queue_softlimits")
	s.PreemptClasses = map[string]policy.PreemptClass{over.ID: policy.BitQueueSoft}
	p := Schedule(s)
	if got := preempts(p); got != fmt.Sprint([]string{over.ID + ":R"}) {
		t.Fatalf("preempts %s, want the job over its soft limit", got)
	}
}

func TestRequeuedVictimsFirstInTheirLevel(t *testing.T) {
	n1 := vnode("n1", "ncpus=1")
	plain := job(t, 1, "1:ncpus=1", "")
	late := job(t, 2, "1:ncpus=1", "")
	late.SetPreemptedAt(900)
	late.Stime = 800
	early := job(t, 3, "1:ncpus=1", "")
	early.SetPreemptedAt(500)
	early.Stime = 400
	ranAgain := job(t, 4, "1:ncpus=1", "")
	ranAgain.SetPreemptedAt(300)
	ranAgain.Stime = 600 // preempted, then ran again: not first
	ex := job(t, 5, "1:ncpus=1", "", inQueue("express"))
	p := Schedule(preemptSnap(t, "S", []*model.Vnode{n1}, []*model.Job{plain, late, early, ranAgain, ex}))
	if r := runs(p); len(r) != 1 || r[ex.ID] == "" {
		t.Fatalf("runs %v, want the express job first", r)
	}
	p = Schedule(preemptSnap(t, "S", []*model.Vnode{n1}, []*model.Job{plain, late, early, ranAgain}))
	if r := runs(p); len(r) != 1 || r[early.ID] == "" {
		t.Fatalf("runs %v, want the earliest preempted job first", r)
	}
}

// TestPreemptInsidePlacementSet: an express job kept inside one switch
// (place=group=switch) preempts two jobs of the same switch, not one job
// on each switch, although those started more recently.
func TestPreemptInsidePlacementSet(t *testing.T) {
	sw := func(s string) vnodeOpt { return withAvail("switch", s) }
	a1, a2 := vnode("a1", "ncpus=2", sw("A")), vnode("a2", "ncpus=2", sw("A"))
	b1, b2 := vnode("b1", "ncpus=2", sw("B")), vnode("b2", "ncpus=2", sw("B"))
	ja1, ja2 := victimOn(1, 9000, 2, a1), victimOn(2, 100, 2, a2)
	jb1, jb2 := victimOn(3, 8000, 2, b1), victimOn(4, 200, 2, b2)
	ex := job(t, 5, "2:ncpus=2", "scatter:group=switch", inQueue("express"))
	s := preemptSnap(t, "S", []*model.Vnode{a1, a2, b1, b2}, []*model.Job{ex}, ja1, ja2, jb1, jb2)
	s.Defs = psetDefs
	p := Schedule(s)
	got := preempts(p)
	if got != fmt.Sprint([]string{ja1.ID + ":S", ja2.ID + ":S"}) && got != fmt.Sprint([]string{jb1.ID + ":S", jb2.ID + ":S"}) {
		t.Fatalf("preempts %s, want both jobs of one switch", got)
	}
	if len(p.Runs) != 1 {
		t.Fatalf("runs %v", runs(p))
	}
}
