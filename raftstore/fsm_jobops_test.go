package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

func pbsCode(v any) int {
	if pe, ok := v.(*model.PBSError); ok {
		return pe.Code
	}
	return 0
}

func oneChunk(vnode string, ncpus float64) []model.ExecChunk {
	return []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: vnode, Host: vnode, Amounts: map[string]float64{"ncpus": ncpus}}}}}
}

// runJob submits a job and starts it on node1 (substate 42).
func runJob(h *harness, token string) string {
	id := h.apply(&SubmitJob{Job: testJob(token), Now: 100}).(string)
	if n := h.apply(&RunJobNow{Run: model.RunDecision{JobID: id, Exec: oneChunk("node1", 2)}, Requestor: "root@h", Now: 110}); n != nil {
		h.t.Fatalf("qrun: %v", n)
	}
	h.apply(&JobEvents{Host: "node1", Now: 111, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1, SessionID: 9}}})
	return id
}

func TestHoldReleaseAndExecutionTime(t *testing.T) {
	h := newHarness(t)
	j := testJob("a")
	j.SetExecTime(500)
	id := h.apply(&SubmitJob{Job: j, Now: 100}).(string)
	if got := h.snap().Job(id); got.State != "W" || got.Substate != model.SubWaiting {
		t.Fatalf("submitted with a future Execution_Time: %s/%d", got.State, got.Substate)
	}
	h.apply(&HoldJob{JobID: id, Holds: "uo", Requestor: "root@h", Now: 101})
	if got := h.snap().Job(id); got.State != "H" || got.Hold != "uo" || got.Substate != model.SubHeld {
		t.Fatalf("after qhold: %s/%d hold %q", got.State, got.Substate, got.Hold)
	}
	h.apply(&ReleaseJob{JobID: id, Holds: "o", Now: 102})
	if got := h.snap().Job(id); got.State != "H" || got.Hold != "u" {
		t.Fatalf("after qrls -h o: %s hold %q", got.State, got.Hold)
	}
	h.apply(&ReleaseJob{JobID: id, Holds: "u", Now: 103})
	if got := h.snap().Job(id); got.State != "W" || got.Hold != "n" {
		t.Fatalf("qrls before Execution_Time: %s hold %q, want W", got.State, got.Hold)
	}
	h.apply(&ReleaseWaiting{JobIDs: []string{id}, Now: 499})
	if h.snap().Job(id).State != "W" {
		t.Fatalf("released before its time")
	}
	h.apply(&ReleaseWaiting{JobIDs: []string{id}, Now: 500})
	if got := h.snap().Job(id); got.State != "Q" || got.Etime != 500 {
		t.Fatalf("at Execution_Time: %s etime %d", got.State, got.Etime)
	}
	if n := len(h.snap().Job(id).History); n < 5 {
		t.Errorf("history has %d events, want one per transition", n)
	}
}

func TestDependencies(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	parent := runJob(h, "p")
	ok := testJob("c1")
	ok.SetDeps([]model.Dep{{Type: "afterok", Job: parent}})
	okID := h.apply(&SubmitJob{Job: ok, Now: 120}).(string)
	notok := testJob("c2")
	notok.SetDeps([]model.Dep{{Type: "afternotok", Job: parent}})
	notokID := h.apply(&SubmitJob{Job: notok, Now: 120}).(string)
	grand := testJob("c3")
	grand.SetDeps([]model.Dep{{Type: "afterany", Job: notokID}})
	grandID := h.apply(&SubmitJob{Job: grand, Now: 120}).(string)
	for _, id := range []string{okID, notokID, grandID} {
		if j := h.snap().Job(id); j.State != "H" || j.Substate != model.SubDependHold || j.Hold != "s" {
			t.Fatalf("%s waits on a dependency: %s/%d hold %q", id, j.State, j.Substate, j.Hold)
		}
	}
	// An unknown parent is refused without using up a sequence number.
	bad := testJob("c4")
	bad.SetDeps([]model.Dep{{Type: "afterok", Job: "999.svr"}})
	next := h.snap().NextSeq()
	if c := pbsCode(h.apply(&SubmitJob{Job: bad, Now: 121})); c != model.PBSEBadDepend || h.snap().NextSeq() != next {
		t.Fatalf("unknown parent: code %d, next seq %d -> %d", c, next, h.snap().NextSeq())
	}
	h.apply(&JobEvents{Host: "node1", Now: 130, Events: []model.JobEvent{{JobID: parent, Kind: "ended", Run: 1, Exit: 0}}})
	if j := h.snap().Job(okID); j.State != "Q" || j.Hold != "n" {
		t.Errorf("afterok child after exit 0: %s hold %q", j.State, j.Hold)
	}
	if j := h.snap().Job(notokID); j.State != "F" || j.Substate != model.SubTerminated {
		t.Errorf("afternotok child after exit 0: %s/%d, want deleted", j.State, j.Substate)
	}
	// The deleted child's own dependents are settled too (afterany: released).
	if j := h.snap().Job(grandID); j.State != "Q" {
		t.Errorf("afterany grandchild: %s", j.State)
	}
}

func TestSuspendResumeGivesCpusBack(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := runJob(h, "a")
	queued := h.apply(&SubmitJob{Job: testJob("b"), Now: 112}).(string)
	if c := pbsCode(h.apply(&SignalJob{JobID: queued, Signal: "SIGKILL", Now: 113})); c != model.PBSEBadState {
		t.Fatalf("signal to a queued job: code %d", c)
	}
	h.apply(&SignalJob{JobID: id, Signal: "suspend", Now: 120})
	j := h.snap().Job(id)
	if j.State != "S" || j.Substate != model.SubSuspended || len(j.Signals()) != 1 || j.Signals()[0].Signal != "suspend" {
		t.Fatalf("suspended: %s/%d signals %v", j.State, j.Substate, j.Signals())
	}
	if v := h.snap().Vnode("node1"); v.Assigned["ncpus"] != 0 || v.Jobs[id] == 0 {
		t.Fatalf("suspended job's cpus: assigned %v jobs %v", v.Assigned, v.Jobs)
	}
	h.apply(&SignalJob{JobID: id, Signal: "resume", Now: 130})
	if v := h.snap().Vnode("node1"); v.Assigned["ncpus"] != 2 || h.snap().Job(id).State != "R" {
		t.Fatalf("resumed: assigned %v state %s", v.Assigned, h.snap().Job(id).State)
	}
	h.apply(&SignalJob{JobID: id, Signal: "suspend", Now: 140})
	h.apply(&JobEvents{Host: "node1", Now: 150, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 271}}})
	if v := h.snap().Vnode("node1"); v.Assigned["ncpus"] != 0 || len(v.Jobs) != 0 {
		t.Fatalf("a suspended job that ends gives back nothing twice: assigned %v", v.Assigned)
	}
}

func TestAlterRulesAndRerun(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := runJob(h, "a")
	list := map[string]string{"ncpus": "4"}
	if c := pbsCode(h.apply(&AlterJob{JobID: id, Now: 120, Resources: &AlteredRes{List: list}})); c != model.PBSEModAtrRun {
		t.Fatalf("ncpus of a running job: code %d", c)
	}
	list = map[string]string{"ncpus": "2", "walltime": "00:10:00"}
	name := "renamed"
	if r := h.apply(&AlterJob{JobID: id, Now: 121, Name: &name, Resources: &AlteredRes{List: list, Select: h.snap().Job(id).Select}}); r != nil {
		t.Fatalf("walltime of a running job: %v", r)
	}
	if j := h.snap().Job(id); j.Name != "renamed" || j.ResourceList["walltime"] != "00:10:00" {
		t.Fatalf("altered: %q %v", j.Name, j.ResourceList)
	}
	h.apply(&RerunJob{JobID: id, Requestor: "root@h", Now: 130})
	if j := h.snap().Job(id); !j.KillRequested() || !j.RequeueOnEnd() {
		t.Fatalf("qrerun did not ask for a kill")
	}
	h.apply(&JobEvents{Host: "node1", Now: 131, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 271}}})
	if j := h.snap().Job(id); j.State != "Q" || j.KillRequested() || len(j.Exec) != 0 {
		t.Fatalf("after the rerun kill: %s kill=%v exec=%v", j.State, j.KillRequested(), j.Exec)
	}
	noRerun := testJob("b")
	noRerun.Rerun = false
	nid := h.apply(&SubmitJob{Job: noRerun, Now: 140}).(string)
	h.apply(&RunJobNow{Run: model.RunDecision{JobID: nid, Exec: oneChunk("node1", 2)}, Now: 141})
	if c := pbsCode(h.apply(&RerunJob{JobID: nid, Now: 142})); c != model.PBSENoRerun {
		t.Fatalf("qrerun of a non-rerunnable job: code %d", c)
	}
	// qrun is validated like a scheduler decision.
	big := h.apply(&SubmitJob{Job: testJob("c"), Now: 150}).(string)
	if c := pbsCode(h.apply(&RunJobNow{Run: model.RunDecision{JobID: big, Exec: oneChunk("node1", 8)}, Now: 151})); c != model.PBSEResourceUnavail {
		t.Fatalf("qrun beyond capacity: code %d", c)
	}
}

func TestMoveAndMarkVnodes(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	if c := pbsCode(h.apply(&MoveJob{JobID: id, Queue: "nosuch", Now: 101})); c != model.PBSEUnknownQueue {
		t.Fatalf("move to unknown queue: code %d", c)
	}
	off, comment := true, "disk replaced"
	epoch := h.snap().Epoch()
	h.apply(&MarkVnodes{Vnodes: []string{"node1"}, Offline: &off, Comment: &comment, Now: 102})
	v := h.snap().Vnode("node1")
	if v.State&model.NodeOffline == 0 || v.Comment != comment || h.snap().Epoch() == epoch {
		t.Fatalf("offline: state %v comment %q", v.State, v.Comment)
	}
	if c := pbsCode(h.apply(&MarkVnodes{Vnodes: []string{"node1", "nosuch"}, Offline: &off, Now: 103})); c != model.PBSEUnknownNode {
		t.Fatalf("unknown vnode: code %d", c)
	}
}
