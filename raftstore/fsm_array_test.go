package raftstore

import (
	"encoding/json"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func arrayJob(t *testing.T, token, spec string) *model.Job {
	t.Helper()
	j := testJob(token)
	a, err := model.ParseArraySpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	j.Array = a
	return j
}

func endSubjob(h *harness, id string, exit int, now int64) {
	h.apply(&JobEvents{Host: "node1", Now: now, Events: []model.JobEvent{{JobID: id, Kind: "ended", Exit: exit}}})
}

func TestArraySubmitIsOneCompactRecord(t *testing.T) {
	size := func(spec string) int {
		h := newHarness(t)
		id := h.apply(&SubmitJob{Job: arrayJob(t, "a", spec), Now: 100})
		if id != "0[].svr" {
			t.Fatalf("array id = %v", id)
		}
		snap := h.snap()
		if n := len(snap.Jobs()); n != 1 {
			t.Fatalf("%s: %d job records after submit, want 1", spec, n)
		}
		b, err := json.Marshal(snap.Job("0[].svr"))
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	small, huge := size("1-10"), size("1-1000000")
	// Only the digits of the end index (and of the queued span's end)
	// differ: O(log n), not O(n).
	if huge-small > 16 {
		t.Fatalf("parent grows with the index count: %d bytes for 10, %d for 1,000,000", small, huge)
	}
	h := newHarness(t)
	h.apply(&SubmitJob{Job: arrayJob(t, "a", "1-5"), Now: 100})
	p := h.snap().Job("0[].svr")
	if p.State != model.StateQueued || p.Output != "h:/home/alice/job.o0.^array_index^" {
		t.Fatalf("parent %s output %q", p.State, p.Output)
	}
}

func TestArraySubjobsMaterializeAndRollUp(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "8")
	pid := h.apply(&SubmitJob{Job: arrayJob(t, "a", "1-3%2"), Now: 100}).(string)
	runs := []model.RunDecision{
		{JobID: "0[1].svr", Exec: oneChunk("node1", 2)},
		{JobID: "0[2].svr", Exec: oneChunk("node1", 2)},
		{JobID: "0[3].svr", Exec: oneChunk("node1", 2)}, // over %2: skipped
		{JobID: "0[9].svr", Exec: oneChunk("node1", 2)}, // not an index
	}
	if n := h.apply(&ApplyPlan{Now: 200, Runs: runs}); n != 2 {
		t.Fatalf("started %v subjobs, want 2", n)
	}
	snap := h.snap()
	p := snap.Job(pid)
	if p.State != model.StateBegun || p.Substate != model.SubArrayBegun || p.Array.Running() != 2 {
		t.Fatalf("parent %s/%d running %d", p.State, p.Substate, p.Array.Running())
	}
	s := snap.Job("0[1].svr")
	if s == nil || s.State != model.StateRunning || s.ArrayID() != pid || s.ArrayIndex() != 1 || s.Output != "h:/home/alice/job.o0.1" {
		t.Fatalf("subjob record: %+v", s)
	}
	if got := p.Array.Indices(p.Array.Queued); got != "3" {
		t.Fatalf("remaining = %s", got)
	}
	endSubjob(h, "0[1].svr", 0, 300)
	if s := h.snap().Job("0[1].svr"); s.State != model.StateExpired || s.Substate != model.SubExpired {
		t.Fatalf("finished subjob %s/%d", s.State, s.Substate)
	}
	h.apply(&ApplyPlan{Now: 310, Runs: []model.RunDecision{{JobID: "0[3].svr", Exec: oneChunk("node1", 2)}}})
	endSubjob(h, "0[2].svr", 3, 320)
	if p := h.snap().Job(pid); p.State != model.StateBegun {
		t.Fatalf("parent with a running subjob: %s", p.State)
	}
	endSubjob(h, "0[3].svr", 0, 330)
	p = h.snap().Job(pid)
	if p.State != model.StateFinished || p.Exit == nil || *p.Exit != 1 {
		t.Fatalf("parent after all subjobs: %s exit %v", p.State, p.Exit)
	}
	if v := h.snap().Vnode("node1"); len(v.Jobs) != 0 {
		t.Fatalf("vnode still lists %v", v.Jobs)
	}
}

func TestArrayDeleteRangesAndWhole(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "8")
	pid := h.apply(&SubmitJob{Job: arrayJob(t, "a", "0-999999"), Now: 100}).(string)
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{
		{JobID: "0[5].svr", Exec: oneChunk("node1", 2)},
		{JobID: "0[6].svr", Exec: oneChunk("node1", 2)},
	}})
	// A range: queued indices go at once, the running one in it is killed.
	if err := h.apply(&DeleteJob{JobID: "0[3-500000].svr", Requestor: "alice@h", Now: 300}); err != nil {
		t.Fatalf("range delete: %v", err)
	}
	snap := h.snap()
	p := snap.Job(pid)
	if got := p.Array.Indices(p.Array.Queued); got != "0-2,500001-999999" {
		t.Fatalf("remaining after range delete = %s", got)
	}
	if !snap.Job("0[5].svr").KillRequested() || !snap.Job("0[6].svr").KillRequested() {
		t.Fatalf("running subjobs in the range were not asked to die")
	}
	// A queued subjob without a record.
	if err := h.apply(&DeleteJob{JobID: "0[1].svr", Requestor: "alice@h", Now: 301}); err != nil {
		t.Fatalf("subjob delete: %v", err)
	}
	if err := h.apply(&DeleteJob{JobID: "0[1].svr", Requestor: "alice@h", Now: 302}); pbsCode(err) != model.PBSEHistJobID {
		t.Fatalf("second delete of a done subjob: %v", err)
	}
	if err := h.apply(&DeleteJob{JobID: "0[2000000].svr", Now: 302}); pbsCode(err) != model.PBSEUnknownJobID {
		t.Fatalf("index out of the array: %v", err)
	}
	endSubjob(h, "0[5].svr", 271, 310)
	// The whole array: everything queued goes; it ends with its last subjob.
	h.apply(&DeleteJob{JobID: pid, Requestor: "alice@h", Now: 320})
	p = h.snap().Job(pid)
	if p.State != model.StateBegun || p.Array.Queued.Count() != 0 {
		t.Fatalf("parent with one subjob still dying: %s queued %d", p.State, p.Array.Queued.Count())
	}
	endSubjob(h, "0[6].svr", 271, 330)
	p = h.snap().Job(pid)
	if p.State != model.StateFinished || p.Substate != model.SubTerminated {
		t.Fatalf("deleted array: %s/%d", p.State, p.Substate)
	}
	if n := len(h.snap().Jobs()); n != 3 {
		t.Fatalf("records = %d, want parent + 2 finished subjobs", n)
	}
	h.apply(&DeleteJob{JobID: pid, Purge: true, Now: 400})
	if n := len(h.snap().Jobs()); n != 0 {
		t.Fatalf("qdel -x of the array left %d records", n)
	}
}

func TestArrayDeleteQueuedArrayFinishesAtOnce(t *testing.T) {
	h := newHarness(t)
	pid := h.apply(&SubmitJob{Job: arrayJob(t, "a", "1-1000000"), Now: 100}).(string)
	h.apply(&DeleteJob{JobID: pid, Requestor: "alice@h", Now: 200})
	if p := h.snap().Job(pid); p.State != model.StateFinished || p.Array.Done.Count() != 1000000 {
		t.Fatalf("deleted queued array: %s", p.State)
	}
}

func TestQorderSwapsRanks(t *testing.T) {
	h := newHarness(t)
	a := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	b := h.apply(&SubmitJob{Job: testJob("b"), Now: 100}).(string)
	if err := h.apply(&OrderJobs{JobID: a, Other: b, Requestor: "alice@h", Now: 200}); err != nil {
		t.Fatal(err)
	}
	snap := h.snap()
	if snap.Job(a).OrderRank() != 1 || snap.Job(b).OrderRank() != 0 {
		t.Fatalf("ranks after qorder: %d %d", snap.Job(a).OrderRank(), snap.Job(b).OrderRank())
	}
}
