package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore/manager"
)

func usageOf(h *harness, entity string) float64 { return h.snap().FairshareUsage()[entity] }

// TestFairshareChargeFromReports: live usage reports and the final figures
// charge the increase of the usage resource to the job's entity; a stale
// report charges nothing.
func TestFairshareChargeFromReports(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := runJob(h, "a") // alice, 2 cpus
	// Before the leader's first tick (every server at command level 3)
	// nothing is charged: a server of an earlier release would not.
	h.apply(&JobEvents{Host: "node1", Now: 105, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 1,
		Used: map[string]string{"cput": "00:00:10", "walltime": "00:00:05"}}}})
	if got := h.snap().FairshareUsage(); len(got) != 0 {
		t.Fatalf("charged before the clock started: %v", got)
	}
	h.apply(&Fairshare{Op: FairshareTick, Now: 106})
	h.apply(&JobEvents{Host: "node1", Now: 110, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 1,
		Used: map[string]string{"cput": "00:01:50", "walltime": "00:01:00"}}}})
	if u := usageOf(h, "alice"); u != 101 {
		t.Fatalf("after 100 s of cput: usage %v, want 101 (1 is the minimum)", u)
	}
	h.apply(&JobEvents{Host: "node1", Now: 111, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 7,
		Used: map[string]string{"cput": "10:00:00"}}}})
	h.apply(&JobEvents{Host: "node1", Now: 120, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1,
		Used: map[string]string{"cput": "00:03:30", "walltime": "00:02:00"}}}})
	if u := usageOf(h, "alice"); u != 201 {
		t.Fatalf("after the end: usage %v, want 201", u)
	}

	// ncpus x walltime, charged to the group.
	manage(h, 130, manager.Set, manager.Sched, "", set("fairshare_usage_res", "ncpus"), set("fairshare_entity", "egroup"))
	j := testJob("b")
	j.Group = "physics"
	id2 := h.apply(&SubmitJob{Job: j, Now: 131}).(string)
	h.apply(&RunJobNow{Run: model.RunDecision{JobID: id2, Exec: oneChunk("node1", 2)}, Requestor: "root@h", Now: 140})
	h.apply(&JobEvents{Host: "node1", Now: 141, Events: []model.JobEvent{{JobID: id2, Kind: "started", Run: 1, SessionID: 9}}})
	h.apply(&JobEvents{Host: "node1", Now: 200, Events: []model.JobEvent{{JobID: id2, Kind: "ended", Run: 1,
		Used: map[string]string{"cput": "00:00:01", "walltime": "00:00:50"}}}})
	if u := usageOf(h, "physics"); u != 101 {
		t.Fatalf("2 cpus x 50 s to physics: usage %v, want 101", u)
	}
}

// TestFairshareDecayClock: the leader's ticks decay once per whole
// fairshare_decay_time, the clock is replicated (a tick from a new leader
// continues the schedule) and survives a snapshot.
func TestFairshareDecayClock(t *testing.T) {
	h := newHarness(t)
	manage(h, 2, manager.Set, manager.Sched, "", set("fairshare_decay_time", "100"), set("fairshare_decay_factor", "0.5"))
	h.apply(&Fairshare{Op: FairshareSet, Entity: "alice", Usage: 800, Now: 3})
	h.apply(&Fairshare{Op: FairshareSet, Entity: "bob", Usage: 3, Now: 3})
	h.apply(&Fairshare{Op: FairshareTick, Now: 1000}) // starts the clock
	if u := usageOf(h, "alice"); u != 800 {
		t.Fatalf("first tick decayed: %v", u)
	}
	h.apply(&Fairshare{Op: FairshareTick, Now: 900}) // a leader whose clock is behind
	h.apply(&Fairshare{Op: FairshareTick, Now: 1099})
	if u := usageOf(h, "alice"); u != 800 || h.snap().FairshareLastDecay() != 1000 {
		t.Fatalf("decayed before a whole period, or a clock behind moved the schedule: %v, clock %d", u, h.snap().FairshareLastDecay())
	}
	h.apply(&Fairshare{Op: FairshareTick, Now: 1250}) // two periods
	if u := usageOf(h, "alice"); u != 200 || h.snap().FairshareLastDecay() != 1200 {
		t.Fatalf("two periods: usage %v clock %d, want 200 and 1200", u, h.snap().FairshareLastDecay())
	}
	if _, ok := h.snap().FairshareUsage()["bob"]; ok {
		t.Fatalf("usage decayed to the minimum is kept: %v", h.snap().FairshareUsage())
	}
	// A snapshot carries usage and clock: the restored server decays on
	// the same schedule.
	h2 := h.restored(t)
	h2.index = h.index
	h2.apply(&Fairshare{Op: FairshareTick, Now: 1300})
	if u := usageOf(h2, "alice"); u != 100 || h2.snap().FairshareLastDecay() != 1300 {
		t.Fatalf("after restore: usage %v clock %d", u, h2.snap().FairshareLastDecay())
	}
}

// TestFairsharePbsfsOps: set, decay, trim and reset as pbsfs asks, and
// refused values.
func TestFairsharePbsfsOps(t *testing.T) {
	h := newHarness(t)
	manage(h, 2, manager.Set, manager.Sched, "", set("resource_group", "grpA 1 root 10,alice 2 grpA 5"))
	for _, e := range []string{"alice", "mallory", "grpA"} {
		h.apply(&Fairshare{Op: FairshareSet, Entity: e, Usage: 64, Now: 3})
	}
	h.apply(&Fairshare{Op: FairshareDecay, Now: 4})
	if u := usageOf(h, "alice"); u != 32 {
		t.Fatalf("pbsfs -d: %v", u)
	}
	h.apply(&Fairshare{Op: FairshareTrim, Now: 5})
	if got := h.snap().FairshareUsage(); len(got) != 2 || got["mallory"] != 0 {
		t.Fatalf("pbsfs -e kept %v", got)
	}
	for _, bad := range []*Fairshare{{Op: FairshareSet, Entity: "x", Usage: 1e300}, {Op: FairshareSet, Entity: "x", Usage: -1},
		{Op: FairshareSet, Usage: 5}, {Op: "explode"}} {
		if _, ok := h.apply(bad).(*model.PBSError); !ok {
			t.Errorf("%+v accepted", bad)
		}
	}
	h.apply(&Fairshare{Op: FairshareReset, Now: 6})
	if got := h.snap().FairshareUsage(); len(got) != 0 {
		t.Fatalf("reset kept %v", got)
	}
}
