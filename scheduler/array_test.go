package scheduler

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// arrayOf makes job j an array parent with the given spec, its subjobs
// before ordinal started already running (they count against %N).
func arrayOf(t *testing.T, spec string, started int64) jobOpt {
	return func(j *model.Job) {
		a, err := model.ParseArraySpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		a.Queued = model.IndexSet{{Lo: started, Hi: a.Size() - 1}}
		j.ID = model.FormatArrayID(j.Seq, "svr")
		j.Array = a
	}
}

func TestArrayOffersQueuedSubjobsAsOneClass(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=2")}
	p := job(t, 1, "1:ncpus=1", "", arrayOf(t, "1-1000000", 0))
	plan := Schedule(snapshot(vs, p, job(t, 2, "1:ncpus=1", "")))
	got := runs(plan)
	if len(got) != 6 {
		t.Fatalf("runs = %v, want 6 subjobs filling 6 cpus", got)
	}
	for _, id := range []string{"1[1].svr", "1[6].svr"} {
		if _, ok := got[id]; !ok {
			t.Errorf("no run for %s in %v", id, got)
		}
	}
	if c, ok := comments(plan)[p.ID]; !ok || c.Comment == "" {
		t.Errorf("parent comment = %+v", c)
	}
	// The class failed once for the array: the identical job after it is
	// judged with the same verdict and not started.
	if _, ok := got[jobID(2)]; ok {
		t.Errorf("job 2 ran with no cpus left")
	}
}

func TestArrayRespectsMaxRunSubjobs(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=8")}
	p := job(t, 1, "1:ncpus=1", "", arrayOf(t, "0-9:3%3", 1)) // 0 runs; 3, 6, 9 queued
	got := runs(Schedule(snapshot(vs, p)))
	if len(got) != 2 {
		t.Fatalf("runs = %v, want 2 (%%3 with one running)", got)
	}
	if _, ok := got["1[3].svr"]; !ok {
		t.Errorf("next index 3 not started: %v", got)
	}
	if _, ok := got["1[6].svr"]; !ok {
		t.Errorf("index 6 not started: %v", got)
	}
	full := job(t, 1, "1:ncpus=1", "", arrayOf(t, "0-9%1", 1))
	if got := runs(Schedule(snapshot(vs, full))); len(got) != 0 {
		t.Fatalf("array at its limit started %v", got)
	}
}

func TestArrayIsOneTopJob(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2")}
	vm := byName(vs)
	r := runningOn(vm, "9.svr", now-10, 100, 2, false, "n1")
	p := job(t, 1, "1:ncpus=1", "", walltime(50), arrayOf(t, "1-5", 0))
	s := snapshot(vs, p)
	s.Now, s.Running = now, []*model.Job{r}
	s.Config.StrictOrdering, s.Config.BackfillDepth = true, 5
	plan := Schedule(s)
	if len(plan.Runs) != 0 || len(plan.Estimates) != 1 || plan.Estimates[0].JobID != p.ID || !plan.Estimates[0].Top {
		t.Fatalf("runs %v estimates %+v, want one estimate on the parent", plan.Runs, plan.Estimates)
	}
}

func TestQorderRankDecidesSubmissionOrder(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=1")}
	r0, r1 := int64(1), int64(0) // qorder swapped jobs 0 and 1
	a := job(t, 0, "1:ncpus=1", "", func(j *model.Job) { j.Rank = &r0 })
	b := job(t, 1, "1:ncpus=1", "", func(j *model.Job) { j.Rank = &r1 })
	got := runs(Schedule(snapshot(vs, a, b)))
	if _, ok := got[b.ID]; !ok || len(got) != 1 {
		t.Fatalf("runs = %v, want only %s (first in rank)", got, b.ID)
	}
}
