package raftstore

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestStageinFailedWaits: a failed stage-in gives the resources back and
// puts the job in W, substate 37, for 30 minutes with the copy error as
// its comment (PBS's behaviour); then it is eligible again. A job deleted
// while staging in ends instead.
func TestStageinFailedWaits(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	h.apply(&JobEvents{Host: "node1", Now: 210, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventStageinFailed, Run: 1, Exit: -1,
		Comment: "Unable to copy file in.dat from store:/data/in.dat: file does not exist"}}})
	j := h.snap().Job(id)
	if j.State != model.StateWaiting || j.Substate != model.SubStageFail || j.ExecTime() != 210+model.StageFailWait || j.MSHost() != "" || len(j.Exec) != 0 {
		t.Fatalf("job %s/%d exectime %d ms %q exec %v", j.State, j.Substate, j.ExecTime(), j.MSHost(), j.Exec)
	}
	if j.Comment != "Stage-in failed: Unable to copy file in.dat from store:/data/in.dat: file does not exist" {
		t.Errorf("comment %q", j.Comment)
	}
	if last := j.History[len(j.History)-1].Text; !strings.HasPrefix(last, "Stage-in failed: Unable to copy file") {
		t.Errorf("tracejob line %q", last)
	}
	if v := h.snap().Vnode("node1"); v.Assigned["ncpus"] != 0 || len(v.Jobs) != 0 {
		t.Errorf("resources kept: %v %v", v.Assigned, v.Jobs)
	}
	h.apply(&ReleaseWaiting{JobIDs: []string{id}, Now: 210 + model.StageFailWait})
	if j := h.snap().Job(id); j.State != model.StateQueued {
		t.Errorf("after the wait: %s", j.State)
	}

	id2 := h.apply(&SubmitJob{Job: testJob("b"), Now: 300}).(string)
	h.apply(&ApplyPlan{Now: 310, Runs: []model.RunDecision{{JobID: id2, Exec: exec}}})
	h.apply(&DeleteJob{JobID: id2, Requestor: "alice@h", Now: 315})
	h.apply(&JobEvents{Host: "node1", Now: 320, Events: []model.JobEvent{{JobID: id2, Kind: model.JobEventStageinFailed, Run: 1, Exit: -1, Comment: "x"}}})
	if j := h.snap().Job(id2); j.State != model.StateFinished {
		t.Errorf("deleted job after failed stage-in: %s/%d", j.State, j.Substate)
	}
}
