package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestWorkIndexMovesOnlyForWhatTheAgentActsOn: the host's work index
// answers its agent's long poll, so it must move when the agent has
// something to do (a run to start, a kill, a signal, a run taken away) and
// not for the agent's own started, usage and ended reports, which used to
// cost a work answer each.
func TestWorkIndexMovesOnlyForWhatTheAgentActsOn(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	idx := func() uint64 {
		i, _ := h.snap().TableIndex(HostWorkKey("node1"))
		return i
	}
	step := func(what string, wantMove bool, c Command) {
		t.Helper()
		before := idx()
		if res, ok := h.apply(c).(error); ok && res != nil {
			t.Fatalf("%s: %v", what, res)
		}
		if moved := idx() != before; moved != wantMove {
			t.Errorf("%s: work index moved %v, want %v", what, moved, wantMove)
		}
	}
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 1}}}}}
	step("run decision", true, &ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	step("started report", false, &JobEvents{Host: "node1", Now: 210, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventStarted, Run: 1, SessionID: 7}}})
	if j := h.snap().Job(id); j.Substate != model.SubRunning || j.SessionID != 7 {
		t.Fatalf("started report not applied: substate %d session %d", j.Substate, j.SessionID)
	}
	step("usage report", false, &JobEvents{Host: "node1", Now: 220, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventUsage, Run: 1, Used: map[string]string{"cput": "00:00:05"}}}})
	step("signal", true, &SignalJob{JobID: id, Signal: "SIGUSR1", Requestor: "root@h", Now: 230})
	step("qdel", true, &DeleteJob{JobID: id, Requestor: "root@h", Now: 240})
	step("ended report", false, &JobEvents{Host: "node1", Now: 250, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventEnded, Run: 1, Exit: 271}}})
	if j := h.snap().Job(id); j != nil && j.IsRunning() {
		t.Fatalf("ended report not applied: %s", j.State)
	}

	// A run taken away without its end being reported (qdel -W force,
	// a requeue) wakes the agent, which must stop it.
	for _, c := range []struct {
		what string
		cmd  func(id string) Command
	}{
		{"qdel -W force", func(id string) Command { return &DeleteJob{JobID: id, Requestor: "root@h", Force: true, Now: 400} }},
		{"requeue", func(id string) Command { return &RequeueJobs{JobIDs: []string{id}, Comment: "node down", Now: 400} }},
	} {
		id := h.apply(&SubmitJob{Job: testJob(c.what), Now: 300}).(string)
		step(c.what+": run decision", true, &ApplyPlan{Now: 310, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
		step(c.what+": started report", false, &JobEvents{Host: "node1", Now: 320, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventStarted, Run: 1, SessionID: 8}}})
		step(c.what, true, c.cmd(id))
		if j := h.snap().Job(id); j != nil && j.MSHost() == "node1" {
			t.Fatalf("%s: job still on node1", c.what)
		}
	}
}

// TestAgentSeesChangeWhileNotStarted: before the agent has started a run
// (substate prerun) it is given the job whole, so any change is shown.
func TestAgentSeesChangeWhileNotStarted(t *testing.T) {
	old := &model.Job{ID: "1.s", State: model.StateRunning, Substate: model.SubPrerun, RunCount: 1}
	old.SetMSHost("n1")
	j := old.Copy()
	j.Comment = "changed"
	if !agentSeesChange(old, j) {
		t.Error("a change to a run not yet started was hidden from its agent")
	}
	old.Substate, j.Substate = model.SubRunning, model.SubRunning
	if agentSeesChange(old, j) {
		t.Error("a comment on a started run woke its agent")
	}
	j.Substate = model.SubPrerun
	if !agentSeesChange(old, j) {
		t.Error("a run back at prerun was hidden from its agent")
	}
}
