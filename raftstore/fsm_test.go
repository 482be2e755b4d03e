package raftstore

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// harness applies commands to a bare FSM, as Raft would, with increasing
// log indexes.
type harness struct {
	t     *testing.T
	fsm   *FSM
	index uint64
	// record, when set, collects the log entries applied.
	record *[][]byte
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	f, err := NewFSM(log.New(io.Discard, "", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, fsm: f}
	cfg := model.ServerConfig{
		Name: "svr", Defs: model.BuiltinResources(), DefaultQueue: "workq",
		Queues:           map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}},
		JobHistoryEnable: true, MaxJobSequenceID: 9999999, MaxArraySize: 1000000,
	}
	h.apply(&SetServerConfig{Config: cfg, Now: 1})
	return h
}

func (h *harness) apply(c Command) any {
	h.t.Helper()
	data, err := Encode(c)
	if err != nil {
		h.t.Fatal(err)
	}
	h.index++
	if h.record != nil {
		*h.record = append(*h.record, data)
	}
	return h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: data})
}

func (h *harness) snap() *StateSnapshot { return h.fsm.State().Snapshot() }

func testJob(token string) *model.Job {
	sel, _ := model.ParseSelect("1:ncpus=2", model.BuiltinResources())
	return &model.Job{
		Name: "job", User: "alice", Owner: "alice@h", Queue: "workq", Token: token, Rerun: true,
		Select: sel, ResourceList: map[string]string{"ncpus": "2"}, Script: "true", SubmitHost: "h",
		Env: []model.EnvVar{{Name: "PBS_O_WORKDIR", Value: "/home/alice"}},
	}
}

func registerNode(h *harness, host string, ncpus string) {
	h.apply(&RegisterHost{Host: host, BootID: "b1", Now: 10, Vnodes: []*model.Vnode{{
		Name: host, Available: map[string]string{"ncpus": ncpus, "mem": "4gb", "host": host, "vnode": host},
	}}})
}

func TestSubmitAssignsSequentialIDsAndDefaultPaths(t *testing.T) {
	h := newHarness(t)
	if id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}); id != "0.svr" {
		t.Fatalf("first id = %v, want 0.svr", id)
	}
	if id := h.apply(&SubmitJob{Job: testJob("b"), Now: 101}); id != "1.svr" {
		t.Fatalf("second id = %v, want 1.svr", id)
	}
	j := h.snap().Job("1.svr")
	if j.Output != "h:/home/alice/job.o1" || j.Error != "h:/home/alice/job.e1" {
		t.Errorf("paths = %q %q", j.Output, j.Error)
	}
	if j.State != model.StateQueued || j.Substate != model.SubQueued || j.Ctime != 101 {
		t.Errorf("state %s/%d ctime %d", j.State, j.Substate, j.Ctime)
	}
}

func TestSubmitTokenMakesRetriesIdempotent(t *testing.T) {
	h := newHarness(t)
	first := h.apply(&SubmitJob{Job: testJob("tok"), Now: 100})
	again := h.apply(&SubmitJob{Job: testJob("tok"), Now: 105})
	if first != again {
		t.Fatalf("retry created a new job: %v then %v", first, again)
	}
	if n := len(h.snap().Jobs()); n != 1 {
		t.Fatalf("%d jobs after a retried submission, want 1", n)
	}
}

func TestPlanRunsJobAndAccountsResources(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	if n := h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}}); n != 1 {
		t.Fatalf("plan started %v jobs, want 1", n)
	}
	j := h.snap().Job(id)
	if j.State != model.StateRunning || j.Substate != model.SubPrerun || j.MSHost() != "node1" || j.RunCount != 1 {
		t.Fatalf("job after run: %s/%d ms=%q run_count=%d", j.State, j.Substate, j.MSHost(), j.RunCount)
	}
	if v := h.snap().Vnode("node1"); v.Assigned["ncpus"] != 2 || v.Jobs[id] != 2 {
		t.Fatalf("vnode assigned %v jobs %v", v.Assigned, v.Jobs)
	}
	// A stale decision for the same job (already running) is skipped.
	if n := h.apply(&ApplyPlan{Now: 201, Runs: []model.RunDecision{{JobID: id, Exec: exec}}}); n != 0 {
		t.Fatalf("stale decision applied")
	}
	h.apply(&JobEvents{Host: "node1", Now: 210, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1, SessionID: 77}}})
	h.apply(&JobEvents{Host: "node1", Now: 260, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 0, Used: map[string]string{"walltime": "00:00:50"}}}})
	j = h.snap().Job(id)
	if j.State != model.StateFinished || j.Substate != model.SubFinished || *j.Exit != 0 || j.SessionID != 77 {
		t.Fatalf("finished job: %s/%d exit %v session %d", j.State, j.Substate, j.Exit, j.SessionID)
	}
	if v := h.snap().Vnode("node1"); v.Assigned["ncpus"] != 0 || len(v.Jobs) != 0 {
		t.Fatalf("resources not released: %v %v", v.Assigned, v.Jobs)
	}
	// A duplicate "ended" (agent retry after a lost reply) changes nothing.
	h.apply(&JobEvents{Host: "node1", Now: 300, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 5}}})
	if j2 := h.snap().Job(id); *j2.Exit != 0 || j2.Obit() != 260 {
		t.Fatalf("duplicate event was applied: exit %d obit %d", *j2.Exit, j2.Obit())
	}
}

func TestPlanSkipsDecisionThatNoLongerFits(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "2")
	a := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	b := h.apply(&SubmitJob{Job: testJob("b"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	n := h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: a, Exec: exec}, {JobID: b, Exec: exec}}})
	if n != 1 {
		t.Fatalf("started %v, want only the first of two 2-cpu jobs on a 2-cpu vnode", n)
	}
	if st := h.snap().Vnode("node1").State; st&model.NodeJobBusy == 0 {
		t.Fatalf("full vnode state = %s, want job-busy", st)
	}
}

func TestDeleteQueuedAndRunning(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	q := h.apply(&SubmitJob{Job: testJob("q"), Now: 100}).(string)
	r := h.apply(&SubmitJob{Job: testJob("r"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: r, Exec: exec}}})

	if err := h.apply(&DeleteJob{JobID: "99.svr", Now: 300}); err.(*model.PBSError).Code != model.PBSEUnknownJobID {
		t.Fatalf("unknown job delete: %v", err)
	}
	h.apply(&DeleteJob{JobID: q, Requestor: "alice@h", Now: 300})
	if j := h.snap().Job(q); j.State != model.StateFinished || j.Substate != model.SubTerminated {
		t.Fatalf("deleted queued job: %s/%d", j.State, j.Substate)
	}
	if err := h.apply(&DeleteJob{JobID: q, Now: 301}); err.(*model.PBSError).Code != model.PBSEHistJobID {
		t.Fatalf("delete of finished job without -x: %v", err)
	}
	h.apply(&DeleteJob{JobID: r, Requestor: "alice@h", Now: 300})
	if j := h.snap().Job(r); !j.KillRequested() || j.State != model.StateRunning {
		t.Fatalf("running job after qdel: kill=%v state=%s", j.KillRequested(), j.State)
	}
	h.apply(&JobEvents{Host: "node1", Now: 310, Events: []model.JobEvent{{JobID: r, Kind: "ended", Run: 1, Exit: 271}}})
	if j := h.snap().Job(r); j.Substate != model.SubTerminated || *j.Exit != 271 {
		t.Fatalf("killed job: %d exit %v", j.Substate, *j.Exit)
	}
	h.apply(&DeleteJob{JobID: q, Purge: true, Now: 400})
	if h.snap().Job(q) != nil {
		t.Fatalf("qdel -x left the history")
	}
}

func TestRegisterAfterRebootRequeuesLostJobs(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	h.apply(&JobEvents{Host: "node1", Now: 210, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1}}})
	h.apply(&HostDown{Host: "node1", Now: 300, Comment: "node down"})
	if st := h.snap().Vnode("node1").State; st&model.NodeDown == 0 {
		t.Fatalf("state after HostDown = %s", st)
	}
	// The agent comes back knowing no jobs (its node rebooted).
	registerNode(h, "node1", "4")
	j := h.snap().Job(id)
	if j.State != model.StateQueued || j.Exec != nil || j.RunCount != 1 {
		t.Fatalf("lost rerunnable job: %s exec=%v run_count=%d", j.State, j.Exec, j.RunCount)
	}
	v := h.snap().Vnode("node1")
	if v.State != 0 || v.Assigned["ncpus"] != 0 {
		t.Fatalf("vnode after re-registration: %s %v", v.State, v.Assigned)
	}
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	for _, tok := range []string{"a", "b", "c"} {
		h.apply(&SubmitJob{Job: testJob(tok), Now: 100})
	}
	want := dump(t, h.snap())
	snap, err := h.fsm.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	f2, _ := NewFSM(log.New(io.Discard, "", 0), nil)
	if err := f2.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, f2.State().Snapshot()); got != want {
		t.Fatalf("restored state differs:\n got %s\nwant %s", got, want)
	}
	// The counter survives: the next job does not reuse an id.
	h2 := &harness{t: t, fsm: f2, index: 100}
	if id := h2.apply(&SubmitJob{Job: testJob("d"), Now: 200}); id != "3.svr" {
		t.Fatalf("next id after restore = %v", id)
	}
}

func TestApplyIsDeterministic(t *testing.T) {
	a, b := newHarness(t), newHarness(t)
	for _, h := range []*harness{a, b} {
		registerNode(h, "node1", "4")
		id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
		exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
		h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	}
	if dump(t, a.snap()) != dump(t, b.snap()) {
		t.Fatal("two FSMs applying the same log diverged")
	}
}

func dump(t *testing.T, s *StateSnapshot) string {
	b, err := json.Marshal(struct {
		Meta   *meta
		Jobs   []*model.Job
		Vnodes []*model.Vnode
	}{s.meta(), s.Jobs(), s.Vnodes()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type memSink struct{ bytes.Buffer }

func (m *memSink) ID() string    { return "mem" }
func (m *memSink) Cancel() error { return nil }
func (m *memSink) Close() error  { return nil }

// TestHostWorkIndexMovesOnlyForThatHost: an agent's long poll watches its
// own host's index, so a job placed elsewhere must not move it.
func TestHostWorkIndexMovesOnlyForThatHost(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	registerNode(h, "node2", "4")
	before1, _ := h.snap().TableIndex(HostWorkKey("node1"))
	before2, watch2 := h.snap().TableIndex(HostWorkKey("node2"))
	if before1 == 0 || before2 == 0 {
		t.Fatalf("registered hosts have no work index: %d %d", before1, before2)
	}
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 1}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	if after, _ := h.snap().TableIndex(HostWorkKey("node1")); after == before1 {
		t.Errorf("node1's work index did not move when it got a job")
	}
	if after, _ := h.snap().TableIndex(HostWorkKey("node2")); after != before2 {
		t.Errorf("node2's work index moved for node1's job")
	}
	select {
	case <-watch2:
		t.Errorf("node2's watch fired for node1's job")
	default:
	}
}
