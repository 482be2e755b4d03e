package raftstore

import (
	"math"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// applyWithin applies c and fails the test, instead of hanging it, when the
// FSM does not answer in time: the attacks below made apply loop for ever.
func applyWithin(h *harness, c Command, d time.Duration) any {
	h.t.Helper()
	done := make(chan any, 1)
	go func() { done <- h.apply(c) }()
	select {
	case res := <-done:
		return res
	case <-time.After(d):
		h.t.Fatalf("apply of %s did not finish within %v", c.Type(), d)
	}
	return nil
}

// The attack of issue 9 item 2: qdel of a stepped range reaching to the
// largest int64 on one's own array made the FSM walk the range.
func TestDeleteOfHugeSteppedRangeIsBounded(t *testing.T) {
	h := newHarness(t)
	pid := h.apply(&SubmitJob{Job: arrayJob(t, "a", "0-9"), Now: 100}).(string)
	res := applyWithin(h, &DeleteJob{JobID: "0[0-9223372036854775806:2].svr", Requestor: "alice@h", Now: 200}, 5*time.Second)
	if err, ok := res.(error); ok {
		t.Fatalf("qdel of the range: %v", err)
	}
	p := h.snap().Job(pid)
	if got := p.Array.Indices(p.Array.Queued); got != "1,3,5,7,9" {
		t.Fatalf("queued after deleting the even indices: %s", got)
	}
	// Ranges wholly outside the array, with steps near the int64 limit.
	for _, id := range []string{"0[9223372036854775806-9223372036854775807:2].svr", "0[11-9223372036854775807:9223372036854775807].svr"} {
		res := applyWithin(h, &DeleteJob{JobID: id, Requestor: "alice@h", Now: 201}, 5*time.Second)
		if pe, ok := res.(*model.PBSError); !ok || pe.Code != model.PBSEUnknownJobID {
			t.Fatalf("qdel %s = %v, want Unknown Job Id", id, res)
		}
	}
	res = applyWithin(h, &DeleteJob{JobID: "0[1-9223372036854775807:9223372036854775807].svr", Requestor: "alice@h", Now: 202}, 5*time.Second)
	if _, ok := res.(error); ok {
		t.Fatalf("qdel of index 1 by a huge step: %v", res)
	}
	if p := h.snap().Job(pid); p.Array.Queued.Contains(1) {
		t.Fatal("index 1 still queued")
	}
}

// Item 3: an array whose size overflows int64 arithmetic, or a malformed
// range that would divide by zero, is refused by the FSM itself.
func TestFSMRefusesOversizedOrMalformedArrays(t *testing.T) {
	h := newHarness(t)
	for _, a := range []*model.ArrayState{
		{Start: 0, End: math.MaxInt64, Step: 1},
		{Start: 0, End: 2000000, Step: 1}, // over max_array_size
		{Start: 0, End: 10, Step: 0},
		{Start: 5, End: 1, Step: 1},
		{Start: -1, End: 10, Step: 1},
	} {
		j := testJob("")
		j.Array = a
		res := applyWithin(h, &SubmitJob{Job: j, Now: 100}, 5*time.Second)
		if _, ok := res.(*model.PBSError); !ok {
			t.Fatalf("array %+v accepted: %v", *a, res)
		}
	}
	if n := len(h.snap().Jobs()); n != 0 {
		t.Fatalf("%d jobs stored", n)
	}
	res := applyWithin(h, &SubmitJob{Job: nil, Now: 100}, 5*time.Second)
	if _, ok := res.(*model.PBSError); !ok {
		t.Fatalf("submit without a job: %v", res)
	}
}
