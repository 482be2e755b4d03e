package raftstore

import (
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// A batched qrls of good and bad ids: every good job is released, each bad
// one gets the error its own ReleaseJob would have got, and replaying the
// same log on a fresh FSM ends in the same state.
func TestReleaseJobsMixOfGoodAndBadIDs(t *testing.T) {
	var log [][]byte
	h := newHarness(t)
	h.record = &log
	var ids []string
	for _, tok := range []string{"a", "b", "c"} {
		j := testJob(tok)
		j.Hold = "u"
		ids = append(ids, h.apply(&SubmitJob{Job: j, Now: 100}).(string))
	}
	registerNode(h, "node1", "4")
	done := runJob(h, "d")
	h.apply(&JobEvents{Host: "node1", Now: 120, Events: []model.JobEvent{{JobID: done, Kind: "ended", Run: 1}}})
	if !h.snap().Job(done).IsFinished() {
		t.Fatalf("job %s did not finish", done)
	}
	rel := func(id string) ReleaseJob { return ReleaseJob{JobID: id, Holds: "u", Requestor: "alice@h", Now: 130} }
	res := h.apply(&ReleaseJobs{Jobs: []ReleaseJob{rel(ids[0]), rel("99.svr"), rel(ids[2]), rel(done)}})
	got, ok := res.(BatchResults)
	if !ok || len(got) != 4 {
		t.Fatalf("result %T %v, want 4 per-job results", res, res)
	}
	if got[0] != nil || got[2] != nil {
		t.Fatalf("good ids refused: %v", got)
	}
	if pbsCode(got[1]) != model.PBSEUnknownJobID || pbsCode(got[3]) != model.PBSEHistJobID {
		t.Fatalf("bad ids: %v, want Unknown Job Id and a finished job's error", got)
	}
	snap := h.snap()
	if s := snap.Job(ids[0]).State; s != "Q" {
		t.Fatalf("released job %s: %s", ids[0], s)
	}
	if s := snap.Job(ids[1]).State; s != "H" {
		t.Fatalf("job %s not in the batch changed to %s", ids[1], s)
	}
	if s := snap.Job(ids[2]).State; s != "Q" {
		t.Fatalf("job after a bad id not released: %s", s)
	}

	// qhold of the same jobs in one entry.
	hold := func(id string) HoldJob { return HoldJob{JobID: id, Holds: "o", Requestor: "root@h", Now: 140} }
	hres := h.apply(&HoldJobs{Jobs: []HoldJob{hold(ids[0]), hold("77.svr"), hold(ids[2])}}).(BatchResults)
	if hres[0] != nil || pbsCode(hres[1]) != model.PBSEUnknownJobID || hres[2] != nil {
		t.Fatalf("hold results: %v", hres)
	}
	if j := h.snap().Job(ids[2]); j.State != "H" || j.Hold != "o" {
		t.Fatalf("held job: %s hold %q", j.State, j.Hold)
	}

	// Replay.
	r := newHarness(t)
	for i, data := range log {
		r.fsm.Apply(&raft.Log{Index: uint64(i + 2), Type: raft.LogCommand, Data: data})
	}
	if dump(t, r.snap()) != dump(t, h.snap()) {
		t.Fatal("replaying the log with batched entries diverged")
	}
}

// An entry above the bound is refused whole, and a server of level 5
// refuses the type like any unknown one.
func TestBatchedEntryBoundsAndLevel(t *testing.T) {
	h := newHarness(t)
	jobs := make([]ReleaseJob, MaxBatchJobs+1)
	for i := range jobs {
		jobs[i] = ReleaseJob{JobID: "1.svr", Holds: "u"}
	}
	if res := h.apply(&ReleaseJobs{Jobs: jobs}); pbsCode(res) != model.PBSEInvalidRequest {
		t.Fatalf("oversized entry: %v", res)
	}
	if ReleaseJobsType.Level() != LevelBatchOps || HoldJobsType.Level() != LevelBatchOps {
		t.Fatal("batched types not at LevelBatchOps")
	}
	data, err := Encode(&HoldJobs{Jobs: []HoldJob{{JobID: "1.svr", Holds: "u"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeAt(data, LevelBatchOps-1); err == nil {
		t.Fatal("a level-5 server decoded HoldJobs")
	}
}

// A batched qdel: a queued job, an unknown id, a running job (kill
// requested), the same queued job again (now finished) and a purge of it,
// each with its own DeleteJob's result, in order, in one entry.
func TestDeleteJobsInOneEntry(t *testing.T) {
	var log [][]byte
	h := newHarness(t)
	h.record = &log
	registerNode(h, "node1", "4")
	q := h.apply(&SubmitJob{Job: testJob("q"), Now: 100}).(string)
	r := runJob(h, "r")
	del := func(id string, purge bool) DeleteJob {
		return DeleteJob{JobID: id, Requestor: "alice@h", Purge: purge, Now: 300}
	}
	res := h.apply(&DeleteJobs{Jobs: []DeleteJob{del(q, false), del("99.svr", false), del(r, false), del(q, false), del(q, true)}})
	got, ok := res.(BatchResults)
	if !ok || len(got) != 5 {
		t.Fatalf("result %T %v", res, res)
	}
	if got[0] != nil || pbsCode(got[1]) != model.PBSEUnknownJobID || got[2] != nil ||
		pbsCode(got[3]) != model.PBSEHistJobID || got[4] != nil {
		t.Fatalf("results %v", got)
	}
	if h.snap().Job(q) != nil {
		t.Fatal("the purge in the batch left the history")
	}
	if j := h.snap().Job(r); !j.KillRequested() {
		t.Fatal("running job not asked to end")
	}
	rp := newHarness(t)
	for i, data := range log {
		rp.fsm.Apply(&raft.Log{Index: uint64(i + 2), Type: raft.LogCommand, Data: data})
	}
	if dump(t, rp.snap()) != dump(t, h.snap()) {
		t.Fatal("replaying the batched qdel diverged")
	}
}
