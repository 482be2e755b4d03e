package raftstore

import (
	"bytes"
	"io"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// TestSubmissionTokenSurvivesRestoreAndDelete checks the token lookup
// that replaced the token index answers as the index did: a retry finds
// the job, also after a restart from a snapshot; once the job is gone
// (qdel -x of its history) the token is free and makes a new job.
func TestSubmissionTokenSurvivesRestoreAndDelete(t *testing.T) {
	h := newHarness(t)
	first := h.apply(&SubmitJob{Job: testJob("tok"), Now: 100}).(string)
	h.apply(&SubmitJob{Job: testJob("other"), Now: 100})

	restored := newHarness(t)
	if err := restored.fsm.Restore(io.NopCloser(bytes.NewReader(persist(t, h.fsm)))); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*harness{h, restored} {
		if again := x.apply(&SubmitJob{Job: testJob("tok"), Now: 105}); again != first {
			t.Fatalf("retry after restore: %v, want %s", again, first)
		}
	}

	if err := h.apply(&DeleteJob{JobID: first, Requestor: "alice@h", Now: 110}); err != nil {
		t.Fatal(err)
	}
	// Finished, still history: a retry still names it.
	if again := h.apply(&SubmitJob{Job: testJob("tok"), Now: 111}); again != first {
		t.Fatalf("retry of a finished job: %v, want %s", again, first)
	}
	if err := h.apply(&DeleteJob{JobID: first, Purge: true, Requestor: "alice@h", Now: 112}); err != nil {
		t.Fatal(err)
	}
	if len(h.fsm.State().tokens.ids) != 1 {
		t.Fatalf("token entries after the purge: %v", h.fsm.State().tokens.ids)
	}
	next := h.apply(&SubmitJob{Job: testJob("tok"), Now: 113})
	if next == first || h.snap().Job(next.(string)) == nil {
		t.Fatalf("submission after the first job was purged: %v", next)
	}
	if again := h.apply(&SubmitJob{Job: testJob("tok"), Now: 114}); again != next {
		t.Fatalf("retry of the new job: %v, want %v", again, next)
	}
}

// TestSubmissionTokenAbortedEntryLeavesNoTrace applies a batch in which
// a purge of a job and a resubmission of its token precede an entry whose
// handler panics: the batch's transaction is aborted and re-applied entry
// by entry. Afterwards the token must name the resubmitted job, and a
// retry must not make a third.
func TestSubmissionTokenAbortedEntryLeavesNoTrace(t *testing.T) {
	h := newHarness(t)
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	h.apply(&DeleteJob{JobID: id, Requestor: "alice@h", Now: 101})
	enc := func(c Command) *raft.Log {
		data, err := Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		h.index++
		return &raft.Log{Index: h.index, Type: raft.LogCommand, Data: data}
	}
	out := h.fsm.ApplyBatch([]*raft.Log{
		enc(&DeleteJob{JobID: id, Purge: true, Requestor: "alice@h", Now: 102}),
		enc(&SubmitJob{Job: testJob("a"), Now: 103}),
		enc(&RegisterHost{Host: "ghost", Vnodes: []*model.Vnode{nil}, Now: 104}), // panics
	})
	again, ok := out[1].(string)
	if !ok || again == id {
		t.Fatalf("resubmission after the purge: %v", out[1])
	}
	if got := h.apply(&SubmitJob{Job: testJob("a"), Now: 105}); got != again {
		t.Fatalf("retry: %v, want %s", got, again)
	}
	if n := len(h.snap().Jobs()); n != 1 {
		t.Fatalf("%d jobs, want the resubmitted one", n)
	}
}
