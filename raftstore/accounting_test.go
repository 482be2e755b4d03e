package raftstore

import (
	"bytes"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

func acctLines(s *StateSnapshot) []string {
	var out []string
	for _, r := range s.AcctRecords(0, 1000) {
		out = append(out, r.Line(time.UTC))
	}
	return out
}

func TestAccountingJobLifecycle(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	j := testJob("a")
	j.Group = "users"
	id := h.apply(&SubmitJob{Job: j, Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	h.apply(&JobEvents{Host: "node1", Now: 210, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1, SessionID: 4242}}})
	h.apply(&JobEvents{Host: "node1", Now: 300, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 3, Used: map[string]string{"walltime": "00:01:30", "cput": "00:00:10"}}}})
	id2 := h.apply(&SubmitJob{Job: testJob("b"), Now: 400}).(string)
	h.apply(&DeleteJob{JobID: id2, Requestor: "bob@h", Now: 410})

	want := []string{
		"01/01/1970 00:01:40;Q;0.svr;queue=workq",
		"01/01/1970 00:03:30;S;0.svr;user=alice group=users project=_pbs_project_default jobname=job queue=workq ctime=100 qtime=100 etime=100 start=200 exec_host=node1/0*2 exec_vnode=(node1:ncpus=2) Resource_List.ncpus=2 session=4242",
		"01/01/1970 00:05:00;E;0.svr;user=alice group=users project=_pbs_project_default jobname=job queue=workq ctime=100 qtime=100 etime=100 start=200 exec_host=node1/0*2 exec_vnode=(node1:ncpus=2) Resource_List.ncpus=2 session=4242 end=300 Exit_status=3 resources_used.cput=00:00:10 resources_used.walltime=00:01:30 run_count=1",
		"01/01/1970 00:06:40;Q;1.svr;queue=workq",
		"01/01/1970 00:06:50;D;1.svr;requestor=bob@h",
	}
	if got := acctLines(h.snap()); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Seq grows with the log; a writer resumes after the last it wrote.
	recs := h.snap().AcctRecords(0, 100)
	for i := 1; i < len(recs); i++ {
		if recs[i].Seq <= recs[i-1].Seq {
			t.Fatalf("seq not increasing: %d after %d", recs[i].Seq, recs[i-1].Seq)
		}
	}
	if rest := h.snap().AcctRecords(recs[2].Seq, 100); len(rest) != 2 || rest[0].Type != "Q" {
		t.Fatalf("records after %d: %+v", recs[2].Seq, rest)
	}
}

func TestAccountingRerun(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	h.apply(&RerunJob{JobID: id, Requestor: "root@h", Force: true, Now: 250})
	got := acctLines(h.snap())
	if len(got) != 2 || !strings.HasPrefix(got[1], "01/01/1970 00:04:10;R;0.svr;user=alice ") || !strings.Contains(got[1], " end=250 run_count=1") {
		t.Fatalf("records %q", got)
	}
}

func TestAccountingProvisioning(t *testing.T) {
	h := newHarness(t)
	provRegister(h, "n1", "b1", nil)
	provRegister(h, "n2", "b1", nil)
	h.apply(&SubmitJob{Job: testJob("a"), Now: 100})
	h.apply(&SubmitJob{Job: testJob("b"), Now: 100})
	// 0.svr: application provisioning succeeds.
	provRun(h, "0.svr", "n1", "os2")
	h.apply(&ProvisionStart{Host: "n1", Mode: model.ProvModeAgent, Alarm: 60, Now: 210})
	h.apply(&ProvisionResult{Host: "n1", Attempt: 1, Kind: ProvHookExited, Exit: 1, Now: 230})
	// 1.svr: the hook fails, the job is requeued.
	provRun(h, "1.svr", "n2", "os1")
	h.apply(&ProvisionStart{Host: "n2", Mode: model.ProvModeAgent, Alarm: 60, Now: 240})
	h.apply(&ProvisionResult{Host: "n2", Attempt: 1, Kind: ProvHookExited, Exit: 7, Now: 250})
	var got []string
	for _, r := range h.snap().AcctRecords(0, 100) {
		if r.Type == "P" || r.Type == "p" || r.Type == "R" {
			got = append(got, r.Line(time.UTC))
		}
	}
	id := "user=alice group= project=_pbs_project_default jobname=job queue=workq"
	want := []string{
		"01/01/1970 00:03:20;P;0.svr;" + id + " provision_vnode=n1:aoe=os2 provision_event=START start_time=200",
		"01/01/1970 00:03:50;p;0.svr;" + id + " provision_vnode=n1:aoe=os2 provision_event=END status=SUCCESS end_time=230",
		"01/01/1970 00:03:20;P;1.svr;" + id + " provision_vnode=n2:aoe=os1 provision_event=START start_time=200",
		"01/01/1970 00:04:10;p;1.svr;" + id + " provision_vnode=n2:aoe=os1 provision_event=END status=FAILURE end_time=250",
	}
	if len(got) != 5 || strings.Join(got[:4], "\n") != strings.Join(want, "\n") || !strings.Contains(got[4], ";R;1.svr;") {
		t.Fatalf("records:\n%s\nwant:\n%s\n+ R", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAccountingBoundedAndSnapshotted(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	// Past the bound, the oldest records go and the table stays bounded.
	for i := 0; i < maxAcctRecords+5; i++ {
		h.apply(&SubmitJob{Job: testJob(""), Now: int64(100 + i)})
	}
	s := h.snap()
	recs := s.AcctRecords(0, 2*maxAcctRecords)
	if len(recs) != maxAcctRecords || s.AcctTrimmed() == 0 || recs[0].Seq <= s.AcctTrimmed() {
		t.Fatalf("%d records, trimmed %d, first %d", len(recs), s.AcctTrimmed(), recs[0].Seq)
	}
	snap, _ := h.fsm.Snapshot()
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	f2, _ := NewFSM(log.New(io.Discard, "", 0), nil)
	if err := f2.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	s2 := f2.State().Snapshot()
	r2 := s2.AcctRecords(0, 2*maxAcctRecords)
	if len(r2) != len(recs) || r2[len(r2)-1].Seq != recs[len(recs)-1].Seq || s2.AcctTrimmed() != s.AcctTrimmed() {
		t.Fatalf("restored %d records", len(r2))
	}
}

// TestSecondDeleteWritesNoSecondRecord: a qdel of a running job whose
// delete is already under way changes nothing and writes no second D
// record (OpenPBS writes one each time its MoM acknowledges a signal).
func TestSecondDeleteWritesNoSecondRecord(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	id := h.apply(&SubmitJob{Job: testJob("a"), Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	h.apply(&JobEvents{Host: "node1", Now: 210, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1}}})
	if res := h.apply(&DeleteJob{JobID: id, Requestor: "alice@h", Now: 300}); res != nil {
		t.Fatalf("first qdel: %v", res)
	}
	if res := h.apply(&DeleteJob{JobID: id, Requestor: "root@h", Now: 301}); res != nil {
		t.Fatalf("second qdel: %v", res)
	}
	var deletes []string
	for _, l := range acctLines(h.snap()) {
		if strings.Contains(l, ";D;") {
			deletes = append(deletes, l)
		}
	}
	if len(deletes) != 1 || !strings.HasSuffix(deletes[0], "requestor=alice@h") {
		t.Fatalf("D records %q, want one by alice", deletes)
	}

}
