package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

func testResv(token string, start, end int64) *model.Reservation {
	sel, _ := model.ParseSelect("1:ncpus=2", model.BuiltinResources())
	return &model.Reservation{Name: "r", Owner: "alice@h", User: "alice", Token: token, Start: start, End: end,
		Duration: end - start, Select: sel, AuthorizedUsers: []string{"alice@h"}}
}

func TestResvSharesTheJobCounterAndCreatesItsQueue(t *testing.T) {
	h := newHarness(t)
	h.apply(&SubmitJob{Job: testJob("j"), Now: 100})
	if id := h.apply(&SubmitResv{Resv: testResv("r", 1000, 2000), Now: 100}); id != "R1.svr" {
		t.Fatalf("reservation id = %v", id)
	}
	if id := h.apply(&SubmitResv{Resv: testResv("r", 1000, 2000), Now: 101}); id != "R1.svr" {
		t.Errorf("a retried submission got %v", id)
	}
	if id := h.apply(&SubmitJob{Job: testJob("k"), Now: 100}); id != "2.svr" {
		t.Errorf("next job id = %v, want 2.svr", id)
	}
	q, ok := h.snap().Config().Queues["R1"]
	if !ok || q.Enabled || q.Started || !q.ACLUserEnable || len(q.ACLUsers) != 1 {
		t.Errorf("queue R1: %+v %v", q, ok)
	}
	if r := h.snap().Reservation("R1.svr"); r.State != model.ResvUnconfirmed {
		t.Errorf("state %d", r.State)
	}
}

func TestResvConfirmStartEndMovesQueuedJobs(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	h.apply(&SubmitResv{Resv: testResv("r", 1000, 2000), Now: 100})
	nodes := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: "R0.svr", Confirm: true, Nodes: nodes}}})
	if r := h.snap().Reservation("R0.svr"); r.State != model.ResvConfirmed || len(r.Nodes) != 1 {
		t.Fatalf("after confirmation: %+v", r)
	}
	if q := h.snap().Config().Queues["R0"]; !q.Enabled || q.Started {
		t.Errorf("queue at confirmation: %+v", q)
	}
	j := testJob("in")
	j.Queue = "R0"
	jid := h.apply(&SubmitJob{Job: j, Now: 120}).(string)
	// Too early: nothing happens.
	if res := h.apply(&ResvEvent{ID: "R0.svr", Kind: ResvEventStart, Now: 999}).(*ResvEventResult); res.Done {
		t.Errorf("started before its time")
	}
	h.apply(&ResvEvent{ID: "R0.svr", Kind: ResvEventStart, Now: 1000})
	if r := h.snap().Reservation("R0.svr"); r.State != model.ResvRunning || !h.snap().Config().Queues["R0"].Started {
		t.Errorf("after start: state %d", r.State)
	}
	h.apply(&ResvEvent{ID: "R0.svr", Kind: ResvEventEnd, Now: 2000})
	r := h.snap().Reservation("R0.svr")
	if r.Gone == 0 || r.State != model.ResvFinished {
		t.Errorf("after end: %+v", r)
	}
	if _, ok := h.snap().Config().Queues["R0"]; ok {
		t.Errorf("queue R0 still exists")
	}
	if got := h.snap().Job(jid); got.Queue != "workq" || got.State != model.StateQueued || got.Comment == "" {
		t.Errorf("queued job after the end: queue %s state %s comment %q", got.Queue, got.State, got.Comment)
	}
}

func TestResvDenyAndDelete(t *testing.T) {
	h := newHarness(t)
	h.apply(&SubmitResv{Resv: testResv("a", 1000, 2000), Now: 100})
	h.apply(&SubmitResv{Resv: testResv("b", 1000, 2000), Now: 100})
	h.apply(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: "R0.svr", Reason: "no room"}}})
	r := h.snap().Reservation("R0.svr")
	if !r.Denied || r.Gone != 110 || r.Comment != "Reservation denied: no room" {
		t.Errorf("denied: %+v", r)
	}
	j := testJob("q")
	j.Queue = "R1"
	h.apply(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: "R1.svr", Confirm: true}}})
	jid := h.apply(&SubmitJob{Job: j, Now: 120}).(string)
	if err := h.apply(&DeleteResv{ID: "R1.svr", Requestor: "alice@h", Now: 130}); err != nil {
		t.Fatal(err)
	}
	if got := h.snap().Job(jid); got.State != model.StateFinished {
		t.Errorf("job of a deleted reservation: %s", got.State)
	}
	if err, ok := h.apply(&DeleteResv{ID: "R1.svr", Now: 131}).(*model.PBSError); !ok || err.Code != model.PBSEUnknownResvID {
		t.Errorf("second delete: %v", err)
	}
	// Tombstones are purged; snapshots carry reservations.
	h.apply(&ResvEvent{Kind: ResvEventPurge, Before: 115, Now: 200})
	if h.snap().Reservation("R0.svr") != nil || h.snap().Reservation("R1.svr") == nil {
		t.Errorf("purge removed the wrong tombstones")
	}
	h2 := h.restored(t)
	if h2.snap().Reservation("R1.svr") == nil {
		t.Errorf("reservation lost in a snapshot")
	}
}
