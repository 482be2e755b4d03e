package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestUsageEventsAndSignalsOfARun covers live resources_used reports and
// that a requeued job's next run starts without the old run's signals.
func TestUsageEventsAndSignalsOfARun(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := runJob(h, "a")
	used := map[string]string{"cput": "00:00:07", "walltime": "00:00:10", "mem": "1024kb"}
	h.apply(&JobEvents{Host: "node1", Now: 120, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 1, Used: used}}})
	if j := h.snap().Job(id); j.Used["cput"] != "00:00:07" || j.State != "R" {
		t.Fatalf("usage of a running job: %v state %s", j.Used, j.State)
	}
	// Reports from another run or host are dropped.
	stale := map[string]string{"cput": "00:09:00"}
	h.apply(&JobEvents{Host: "node1", Now: 121, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 7, Used: stale}}})
	h.apply(&JobEvents{Host: "node2", Now: 121, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 1, Used: stale}}})
	if j := h.snap().Job(id); j.Used["cput"] != "00:00:07" {
		t.Fatalf("stale usage applied: %v", j.Used)
	}
	// A suspended job still reports.
	h.apply(&SignalJob{JobID: id, Signal: "suspend", Now: 122})
	used2 := map[string]string{"cput": "00:00:08", "walltime": "00:00:11"}
	h.apply(&JobEvents{Host: "node1", Now: 123, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 1, Used: used2}}})
	if j := h.snap().Job(id); j.Used["cput"] != "00:00:08" || j.State != "S" {
		t.Fatalf("usage of a suspended job: %v state %s", j.Used, j.State)
	}
	h.apply(&SignalJob{JobID: id, Signal: "resume", Now: 124})
	h.apply(&RerunJob{JobID: id, Requestor: "root@h", Now: 130})
	h.apply(&JobEvents{Host: "node1", Now: 131, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 271}}})
	if j := h.snap().Job(id); j.State != "Q" || len(j.Signals()) != 0 {
		t.Fatalf("requeued: state %s signals %v", j.State, j.Signals())
	}
	// Usage of a job that is no longer running is dropped.
	h.apply(&JobEvents{Host: "node1", Now: 132, Events: []model.JobEvent{{JobID: id, Kind: "usage", Run: 1, Used: stale}}})
	if j := h.snap().Job(id); j.Used["cput"] == "00:09:00" {
		t.Fatalf("usage applied to a queued job")
	}
}
