package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestPlanSoftWalltimes: a plan records estimated.soft_walltime on running
// jobs only, never lowers it, and a changed soft_walltime drops it.
func TestPlanSoftWalltimes(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	a := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	q := h.apply(&SubmitJob{Job: testJob("q"), Now: 101}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 1}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: a, Exec: exec}}})
	h.apply(&ApplyPlan{Now: 300, SoftWalltimes: []model.SoftWalltime{{JobID: a, Seconds: 120}, {JobID: q, Seconds: 120}}})
	if got := h.snap().Job(a).EstSoftWalltime(); got != 120 {
		t.Errorf("running job: estimated.soft_walltime %d, want 120", got)
	}
	if got := h.snap().Job(q).EstSoftWalltime(); got != 0 {
		t.Errorf("queued job took estimated.soft_walltime %d", got)
	}
	h.apply(&ApplyPlan{Now: 301, SoftWalltimes: []model.SoftWalltime{{JobID: a, Seconds: 60}}})
	if got := h.snap().Job(a).EstSoftWalltime(); got != 120 {
		t.Errorf("a stale plan lowered estimated.soft_walltime to %d", got)
	}
	list := map[string]string{}
	for k, v := range h.snap().Job(a).ResourceList {
		list[k] = v
	}
	list["soft_walltime"] = "00:05:00"
	j := h.snap().Job(a)
	if err, ok := h.apply(&AlterJob{JobID: a, Now: 302, Resources: &AlteredRes{List: list, Select: j.Select, Place: j.Place}}).(error); ok && err != nil {
		t.Fatalf("alter soft_walltime of a running job: %v", err)
	}
	if got := h.snap().Job(a).EstSoftWalltime(); got != 0 {
		t.Errorf("a new soft_walltime kept the old estimate %d", got)
	}
	// A plan made before the qalter (extending the old 60 s) is stale.
	h.apply(&ApplyPlan{Now: 303, SoftWalltimes: []model.SoftWalltime{{JobID: a, Seconds: 180}}})
	if got := h.snap().Job(a).EstSoftWalltime(); got != 0 {
		t.Errorf("a stale extension %d was recorded below the new soft_walltime", got)
	}
}
