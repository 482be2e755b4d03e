package raftstore

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// applyAt applies c as an entry the leader appended at Unix time at: the
// FSM's degradation sweep reads its time from there.
func (h *harness) applyAt(c Command, at int64) any {
	h.t.Helper()
	data, err := Encode(c)
	if err != nil {
		h.t.Fatal(err)
	}
	h.index++
	return h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: data, AppendedAt: time.Unix(at, 0)})
}

func oneVnode(name string, ncpus float64) []model.ExecChunk {
	return []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: name, Host: name, Amounts: map[string]float64{"ncpus": ncpus}}}}}
}

// confirmedOnN1 submits a reservation and confirms it on vnode n1.
func confirmedOnN1(t *testing.T, h *harness, start, end int64) string {
	t.Helper()
	id := h.applyAt(&SubmitResv{Resv: testResv("r", start, end), Now: 100}, 100).(string)
	h.applyAt(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: id, Confirm: true, Nodes: oneVnode("n1", 2)}}}, 110)
	return id
}

func offline(on bool) *bool { return &on }

// TestResvDegradesAndRecoversWhenTheVnodeComesBack: CO -> DG when a vnode
// goes offline, DG -> CO when it is back before any replacement.
func TestResvDegradesAndRecoversWhenTheVnodeComesBack(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	id := confirmedOnN1(t, h, 1000, 2000)
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(true), Now: 200}, 200)
	r := h.snap().Reservation(id)
	if r.State != model.ResvDegraded || r.Substate != model.ResvDegraded || model.ResvStateShort(r.State) != "DG" {
		t.Fatalf("after offline: state %d substate %d", r.State, r.Substate)
	}
	if r.RetryAt != 0 || !strings.Contains(r.Comment, "n1") {
		t.Errorf("retry %d comment %q (default: retry in the next cycle)", r.RetryAt, r.Comment)
	}
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(false), Now: 300}, 300)
	r = h.snap().Reservation(id)
	if r.State != model.ResvConfirmed || r.Substate != model.ResvConfirmed || len(r.Unavailable) != 0 {
		t.Errorf("after the vnode came back: %+v", r)
	}
}

// TestResvReconfirmAndRetry: a replacement moves the reservation to new
// vnodes (DG -> CO); a failure with reserve_retry_time sets the next try.
func TestResvReconfirmAndRetry(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	registerNode(h, "n2", "2")
	cfg := h.snap().Config()
	cfg.ReserveRetryTime = 60
	h.apply(&SetServerConfig{Config: cfg, Now: 2})
	id := confirmedOnN1(t, h, 1000, 2000)
	h.applyAt(&HostDown{Host: "n1", Now: 200}, 200)
	r := h.snap().Reservation(id)
	if r.State != model.ResvDegraded || r.RetryAt != 260 {
		t.Fatalf("degraded: state %d retry %d", r.State, r.RetryAt)
	}
	h.applyAt(&ApplyPlan{Now: 260, Resvs: []model.ResvDecision{{ID: id, Reconfirm: true, Reason: "PBS Failed to confirm resv: none"}}}, 260)
	r = h.snap().Reservation(id)
	if r.State != model.ResvDegraded || r.RetryAt != 320 || !strings.HasPrefix(r.Comment, "Reservation is in degraded mode") {
		t.Fatalf("after a failed retry: state %d retry %d comment %q", r.State, r.RetryAt, r.Comment)
	}
	h.applyAt(&ApplyPlan{Now: 320, Resvs: []model.ResvDecision{{ID: id, Reconfirm: true, Confirm: true, Nodes: oneVnode("n2", 2)}}}, 320)
	r = h.snap().Reservation(id)
	if r.State != model.ResvConfirmed || r.ResvVnodes()[0] != "n2" || r.RetryAt != 0 || !strings.Contains(r.Comment, "replaced by n2") {
		t.Errorf("after reconfirmation: %+v", r)
	}
	// A late verdict on a reservation no longer degraded changes nothing.
	h.applyAt(&ApplyPlan{Now: 330, Resvs: []model.ResvDecision{{ID: id, Reconfirm: true, Confirm: true, Nodes: oneVnode("n1", 2)}}}, 330)
	if r := h.snap().Reservation(id); r.ResvVnodes()[0] != "n2" {
		t.Errorf("a stale reconfirmation moved it to %v", r.ResvVnodes())
	}
}

// TestRunningResvDegradesKeepingItsJobs: RN keeps state 5 with substate
// DG; its job on the vnode that is up keeps running; it starts degraded
// when its start comes while DG.
func TestRunningResvDegradesKeepingItsJobs(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	registerNode(h, "n2", "2")
	registerNode(h, "n3", "2")
	id := h.applyAt(&SubmitResv{Resv: testResv("r", 1000, 2000), Now: 100}, 100).(string)
	nodes := append(oneVnode("n1", 2), oneVnode("n2", 2)...)
	h.applyAt(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: id, Confirm: true, Nodes: nodes}}}, 110)
	h.applyAt(&HostDown{Host: "n2", Now: 500}, 500)
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventStart, Now: 1000}, 1000)
	r := h.snap().Reservation(id)
	if r.State != model.ResvRunning || r.Substate != model.ResvDegraded {
		t.Fatalf("started while degraded: state %d substate %d", r.State, r.Substate)
	}
	j := testJob("in")
	j.Queue = "R0"
	jid := h.applyAt(&SubmitJob{Job: j, Now: 1001}, 1001).(string)
	h.applyAt(&ApplyPlan{Now: 1002, Runs: []model.RunDecision{{JobID: jid, Exec: oneVnode("n1", 2)}}}, 1002)
	h.applyAt(&ApplyPlan{Now: 1010, Resvs: []model.ResvDecision{{ID: id, Reconfirm: true, Confirm: true,
		Nodes: append(oneVnode("n1", 2), oneVnode("n3", 2)...)}}}, 1010)
	r = h.snap().Reservation(id)
	if r.State != model.ResvRunning || r.Substate != model.ResvRunning {
		t.Errorf("reconfirmed while running: state %d substate %d", r.State, r.Substate)
	}
	if got := h.snap().Job(jid); !got.IsRunning() || got.KillRequested() {
		t.Errorf("the job on the vnode that stayed up: %s kill %v", got.State, got.KillRequested())
	}
}

// TestStandingResvOnlyTheAffectedOccurrenceMoves: a replacement serves the
// current occurrence; the next one is back on the reservation's vnodes.
func TestStandingResvOnlyTheAffectedOccurrenceMoves(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	registerNode(h, "n2", "2")
	rv := testResv("s", 1000, 1100)
	rv.Occurrences = []int64{1000, 2000}
	id := h.applyAt(&SubmitResv{Resv: rv, Now: 100}, 100).(string)
	h.applyAt(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: id, Confirm: true, Nodes: oneVnode("n1", 2)}}}, 110)
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(true), Now: 200}, 200)
	h.applyAt(&ApplyPlan{Now: 210, Resvs: []model.ResvDecision{{ID: id, Reconfirm: true, Confirm: true, Nodes: oneVnode("n2", 2)}}}, 210)
	if r := h.snap().Reservation(id); r.ResvVnodes()[0] != "n2" || len(r.BaseNodes) != 1 {
		t.Fatalf("current occurrence: %+v", r)
	}
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(false), Now: 300}, 300)
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventEnd, Now: 1100}, 1100)
	r := h.snap().Reservation(id)
	if r.Index != 2 || r.State != model.ResvConfirmed || r.ResvVnodes()[0] != "n1" || len(r.BaseNodes) != 0 {
		t.Errorf("next occurrence: index %d state %d vnodes %v", r.Index, r.State, r.ResvVnodes())
	}
}

// TestResvExclusiveVnodesWhileRunning: the vnodes of a running
// place=excl reservation show resv-exclusive, and only while it runs.
func TestResvExclusiveVnodesWhileRunning(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	rv := testResv("x", 1000, 2000)
	rv.Place.Sharing = model.SharingExcl
	id := h.applyAt(&SubmitResv{Resv: rv, Now: 100}, 100).(string)
	h.applyAt(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: id, Confirm: true, Nodes: oneVnode("n1", 2)}}}, 110)
	if s := h.snap().Vnode("n1").State; s&model.NodeResvExclusive != 0 {
		t.Errorf("resv-exclusive before the start: %s", s)
	}
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventStart, Now: 1000}, 1000)
	if s := h.snap().Vnode("n1").State; s.String() != "resv-exclusive" {
		t.Errorf("running: vnode state %q", s)
	}
	// Its own jobs still start there; others do not.
	in := testJob("in")
	in.Queue = "R0"
	inID := h.applyAt(&SubmitJob{Job: in, Now: 1001}, 1001).(string)
	outID := h.applyAt(&SubmitJob{Job: testJob("out"), Now: 1001}, 1001).(string)
	h.applyAt(&ApplyPlan{Now: 1002, Runs: []model.RunDecision{{JobID: outID, Exec: oneVnode("n1", 1)}}}, 1002)
	h.applyAt(&ApplyPlan{Now: 1002, Runs: []model.RunDecision{{JobID: inID, Exec: oneVnode("n1", 1)}}}, 1002)
	if !h.snap().Job(inID).IsRunning() || h.snap().Job(outID).IsRunning() {
		t.Errorf("on a resv-exclusive vnode: own job %s, outside job %s", h.snap().Job(inID).State, h.snap().Job(outID).State)
	}
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventEnd, Now: 2000}, 2000)
	if s := h.snap().Vnode("n1").State; s != 0 {
		t.Errorf("after the end: vnode state %q", s)
	}
}

// TestMaintenanceResv: M<seq>, confirmed at once with no queue; another
// reservation on the host over the same period is IC; its vnodes show
// maintenance while it runs, over a running job, which keeps running.
func TestMaintenanceResv(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	other := confirmedOnN1(t, h, 1500, 2500)
	jid := h.applyAt(&SubmitJob{Job: testJob("busy"), Now: 120}, 120).(string)
	h.applyAt(&ApplyPlan{Now: 130, Runs: []model.RunDecision{{JobID: jid, Exec: oneVnode("n1", 2)}}}, 130)
	m := testResv("m", 1000, 2000)
	m.Hosts = []string{"n1"}
	m.Nodes = oneVnode("n1", 2)
	mid := h.applyAt(&SubmitResv{Resv: m, Now: 200}, 200).(string)
	if !strings.HasPrefix(mid, "M") {
		t.Fatalf("maintenance id %q", mid)
	}
	mr := h.snap().Reservation(mid)
	if mr.State != model.ResvConfirmed || mr.Queue != "" {
		t.Errorf("maintenance reservation: state %d queue %q", mr.State, mr.Queue)
	}
	if _, ok := h.snap().Config().Queues[model.ResvQueueName(mid)]; ok {
		t.Errorf("a maintenance reservation got a queue")
	}
	if r := h.snap().Reservation(other); r.State != model.ResvDegraded || r.Substate != model.ResvInConflict {
		t.Errorf("overlapped reservation: state %d substate %d", r.State, r.Substate)
	}
	h.applyAt(&ResvEvent{ID: mid, Kind: ResvEventStart, Now: 1000}, 1000)
	if s := h.snap().Vnode("n1").State; s&model.NodeMaintenance == 0 {
		t.Errorf("vnode during maintenance: %q", s)
	}
	if j := h.snap().Job(jid); !j.IsRunning() || j.KillRequested() {
		t.Errorf("job under maintenance: %s", j.State)
	}
	h.applyAt(&ResvEvent{ID: mid, Kind: ResvEventEnd, Now: 2000}, 2000)
	if s := h.snap().Vnode("n1").State; s&model.NodeMaintenance != 0 {
		t.Errorf("vnode after maintenance: %q", s)
	}
}

// TestQmoveResvMovesTheJobAtConfirmation and the idle deletion.
func TestQmoveResvMovesTheJobAtConfirmation(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	jid := h.applyAt(&SubmitJob{Job: testJob("q"), Now: 100}, 100).(string)
	rv := testResv("r", 150, 250)
	rv.ASAP, rv.QmoveJob, rv.DeleteIdleTime = true, jid, 30
	id := h.applyAt(&SubmitResv{Resv: rv, Now: 150}, 150).(string)
	h.applyAt(&ApplyPlan{Now: 160, Resvs: []model.ResvDecision{{ID: id, Confirm: true, Nodes: oneVnode("n1", 2), Start: 400}}}, 160)
	r := h.snap().Reservation(id)
	if r.Start != 400 || r.End != 500 {
		t.Errorf("ASAP start: %d-%d", r.Start, r.End)
	}
	if j := h.snap().Job(jid); j.Queue != r.Queue {
		t.Errorf("job queue %q, want %q", j.Queue, r.Queue)
	}
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventStart, Now: 400}, 400)
	h.applyAt(&DeleteJob{JobID: jid, Requestor: "alice@h", Now: 410}, 410)
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventIdle, Now: 411}, 411)
	if r := h.snap().Reservation(id); r.IdleSince != 411 || r.Gone != 0 {
		t.Fatalf("idle noted: %+v", r)
	}
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventIdle, Now: 430}, 430)
	if r := h.snap().Reservation(id); r.Gone != 0 {
		t.Fatalf("deleted before delete_idle_time")
	}
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventIdle, Now: 441}, 441)
	if r := h.snap().Reservation(id); r.Gone != 441 || !strings.Contains(r.Comment, "idle") {
		t.Errorf("after delete_idle_time: %+v", r)
	}
}

// TestCreateResvFromJob: the job's start makes a running reservation of
// its vnodes and walltime and moves the job in.
func TestCreateResvFromJob(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	j := testJob("c")
	j.SetCreateResvFromJob(true)
	j.ResourceList = map[string]string{"walltime": "00:10:00", "ncpus": "2"}
	jid := h.applyAt(&SubmitJob{Job: j, Now: 100}, 100).(string)
	h.applyAt(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: jid, Exec: oneVnode("n1", 2)}}}, 200)
	got := h.snap().Job(jid)
	if !model.IsResvQueue(got.Queue) || !got.IsRunning() {
		t.Fatalf("job: queue %q state %s", got.Queue, got.State)
	}
	r := h.snap().Reservation(got.Queue + ".svr")
	if r == nil || r.State != model.ResvRunning || r.Start != 200 || r.End != 800 || r.ResvVnodes()[0] != "n1" || r.QmoveJob != jid {
		t.Fatalf("reservation: %+v", r)
	}
	if q := h.snap().Config().Queues[got.Queue]; !q.Enabled || !q.Started {
		t.Errorf("queue %+v", q)
	}
	// Snapshots carry the new fields.
	h2 := h.restored(t)
	if r2 := h2.snap().Reservation(r.ID); r2 == nil || r2.QmoveJob != jid || r2.DeleteIdleTime != model.DefaultDeleteIdleTime {
		t.Errorf("restored: %+v", r2)
	}
}

// TestRunningJobResv: pbs_rsub --job makes a running reservation of a
// running job, from now to the end of its walltime; a queued job is
// refused.
func TestRunningJobResv(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	jid := h.applyAt(&SubmitJob{Job: testJob("r"), Now: 100}, 100).(string)
	queued := h.applyAt(&SubmitJob{Job: testJob("q"), Now: 100}, 100).(string)
	h.applyAt(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: jid, Exec: oneVnode("n1", 2)}}}, 200)
	bad := &model.Reservation{Token: "t0", Start: 300, End: 800, Duration: 500, ResvExtra: model.ResvExtra{QmoveJob: queued}}
	if err, ok := h.applyAt(&SubmitResv{Resv: bad, Now: 300}, 300).(*model.PBSError); !ok || err.Code != model.PBSEBadState {
		t.Errorf("--job of a queued job: %v", err)
	}
	rv := &model.Reservation{Token: "t1", Start: 300, End: 800, Duration: 500, ResvExtra: model.ResvExtra{QmoveJob: jid}}
	id, ok := h.applyAt(&SubmitResv{Resv: rv, Now: 300}, 300).(string)
	if !ok {
		t.Fatalf("--job: %v", id)
	}
	r := h.snap().Reservation(id)
	if r.State != model.ResvRunning || r.Start != 300 || r.End != 800 || h.snap().Job(jid).Queue != r.Queue {
		t.Errorf("reservation %+v, job queue %s", r, h.snap().Job(jid).Queue)
	}
}

// restored returns a new harness restored from a snapshot of h's FSM.
func (h *harness) restored(t *testing.T) *harness {
	t.Helper()
	snap, _ := h.fsm.Snapshot()
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	h2 := newHarness(t)
	if err := h2.fsm.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	return h2
}

// TestDegradedResvOtherExits: a running degraded reservation whose vnode
// comes back is RN/5 again; a degraded one ends at its end like any other,
// and pbs_rdel deletes one.
func TestDegradedResvOtherExits(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	id := confirmedOnN1(t, h, 1000, 2000)
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventStart, Now: 1000}, 1000)
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(true), Now: 1100}, 1100)
	if r := h.snap().Reservation(id); r.State != model.ResvRunning || r.Substate != model.ResvDegraded {
		t.Fatalf("running, vnode offline: %d/%d", r.State, r.Substate)
	}
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(false), Now: 1200}, 1200)
	if r := h.snap().Reservation(id); r.State != model.ResvRunning || r.Substate != model.ResvRunning {
		t.Fatalf("running, vnode back: %d/%d", r.State, r.Substate)
	}
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(true), Now: 1300}, 1300)
	h.applyAt(&ResvEvent{ID: id, Kind: ResvEventEnd, Now: 2000}, 2000)
	if r := h.snap().Reservation(id); r.Gone != 2000 || r.State != model.ResvFinished {
		t.Errorf("degraded at its end: %+v", r)
	}
	other := h.applyAt(&SubmitResv{Resv: testResv("o", 3000, 4000), Now: 2100}, 2100).(string)
	h.applyAt(&ApplyPlan{Now: 2110, Resvs: []model.ResvDecision{{ID: other, Confirm: true, Nodes: oneVnode("n1", 2)}}}, 2110)
	if r := h.snap().Reservation(other); r.State != model.ResvDegraded {
		t.Fatalf("confirmed on an offline vnode: state %d", r.State)
	}
	if err := h.applyAt(&DeleteResv{ID: other, Requestor: "alice@h", Now: 2200}, 2200); err != nil {
		t.Fatal(err)
	}
	if r := h.snap().Reservation(other); r.Gone != 2200 || r.State != model.ResvDeleted {
		t.Errorf("pbs_rdel of a degraded reservation: %+v", r)
	}
}

// TestResvDegradationWaitsForEveryServersLevel: during a rolling upgrade a
// server of the previous release (its record below LevelResv) would not
// degrade a reservation, so no server does; the ServerInfo entry that
// records its new level turns degradation on at the same index everywhere.
func TestResvDegradationWaitsForEveryServersLevel(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	h.apply(&ServerInfo{ID: "s1", APIAddr: "127.0.0.1:1", Level: LevelResv})
	h.apply(&ServerInfo{ID: "s2", APIAddr: "127.0.0.1:2", Level: LevelResv - 1})
	id := confirmedOnN1(t, h, 1000, 2000)
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(true), Now: 200}, 200)
	if r := h.snap().Reservation(id); r.State != model.ResvConfirmed {
		t.Fatalf("degraded while s2 is at level %d: state %d", LevelResv-1, r.State)
	}
	h.apply(&ServerInfo{ID: "s2", APIAddr: "127.0.0.1:2", Level: LevelResv})
	h.applyAt(&MarkVnodes{Vnodes: []string{"n1"}, Offline: offline(true), Now: 300}, 300)
	if r := h.snap().Reservation(id); r.State != model.ResvDegraded {
		t.Fatalf("every server at level %d, vnode offline: state %d", LevelResv, r.State)
	}
}
