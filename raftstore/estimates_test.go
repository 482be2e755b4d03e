package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestPlanEstimatesSetAndClearTopJobs(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	a := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	b := h.apply(&SubmitJob{Job: testJob("b"), Now: 101}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 4}}}}}
	before := h.snap().Job(a)
	h.apply(&ApplyPlan{Now: 200, Estimates: []model.JobEstimate{{JobID: a, Start: 500, Exec: exec, Top: true}}})
	j := h.snap().Job(a)
	if !j.TopJob() || j.EstStart() != 500 || j.EstExecVnode(model.BuiltinResources()) != "(node1:ncpus=4)" {
		t.Fatalf("estimate not applied: %+v", j)
	}
	if before.TopJob() || before.EstStart() != 0 {
		t.Fatal("the stored job was changed in place")
	}
	// Run b, then a plan that clears a and (stale) estimates b: only
	// queued jobs take estimates.
	h.apply(&ApplyPlan{Now: 201, Runs: []model.RunDecision{{JobID: b, Exec: exec}}})
	h.apply(&ApplyPlan{Now: 202, Estimates: []model.JobEstimate{{JobID: a}, {JobID: b, Start: 900, Exec: exec, Top: true}}})
	if j := h.snap().Job(a); j.TopJob() || j.EstStart() != 0 || j.EstExec() != nil {
		t.Fatalf("estimate not cleared: %+v", j)
	}
	if j := h.snap().Job(b); j.TopJob() || j.EstStart() != 0 {
		t.Fatalf("a running job took an estimate: %+v", j)
	}
}
