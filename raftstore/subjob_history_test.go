package raftstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/internal/fillvalue"
	"github.com/strata-hpc/strata/model"
)

// arrayLife applies one array's life to h: 12 subjobs on two hosts, some
// exiting non-zero, one deleted while running, one with qdel -W force, one
// requeued by a lost host and run again, resources_used reported, and
// the last ones purged with qdel -x.
func arrayLife(h *harness) string {
	registerNode(h, "node1", "8")
	registerNode(h, "node2", "8")
	j := testJob("arr")
	j.Array, _ = model.ParseArraySpec("1-12")
	pid := h.apply(&SubmitJob{Job: j, Now: 100}).(string)
	now := int64(200)
	for i := 1; i <= 12; i++ {
		id := model.SubjobID(pid, int64(i))
		host := []string{"node1", "node2"}[i%2]
		now += 3
		h.apply(&ApplyPlan{Now: now, Runs: []model.RunDecision{{JobID: id, Exec: oneChunk(host, 1)}}})
		h.apply(&JobEvents{Host: host, Now: now + 1, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1, SessionID: 1000 + i}}})
		switch i {
		case 4:
			h.apply(&DeleteJob{JobID: id, Requestor: "alice@h", Now: now + 1})
			h.apply(&JobEvents{Host: host, Now: now + 2, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 271}}})
		case 5:
			h.apply(&DeleteJob{JobID: id, Requestor: "root@h", Force: true, Now: now + 1})
		case 6:
			h.apply(&RequeueJobs{JobIDs: []string{id}, Comment: "node lost", Now: now + 1})
			h.apply(&ApplyPlan{Now: now + 2, Runs: []model.RunDecision{{JobID: id, Exec: oneChunk("node1", 1)}}})
			h.apply(&JobEvents{Host: "node1", Now: now + 2, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 2, SessionID: 2000}}})
			h.apply(&JobEvents{Host: "node1", Now: now + 3, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 2, Exit: 0,
				Used: map[string]string{"cput": "00:00:01", "walltime": "00:00:02", "mem": "1024kb"}}}})
		default:
			h.apply(&JobEvents{Host: host, Now: now + 2, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: i % 3,
				Used: map[string]string{"cput": "00:00:00", "walltime": fmt.Sprintf("00:00:%02d", i), "ncpus": "1"}}}})
		}
	}
	h.apply(&DeleteJob{JobID: model.SubjobID(pid, 12), Purge: true, Now: now + 10})
	return pid
}

// dumpJobs is everything a reader of the state sees of the jobs: every
// job, one by id, an array's subjobs, as JSON (qstat -f, tracejob and the
// accounting views are functions of these values).
func dumpJobs(t *testing.T, snap *StateSnapshot, pid string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, j := range snap.Jobs() {
		enc.Encode(j)
		enc.Encode(snap.Job(j.ID))
	}
	for _, j := range snap.Subjobs(pid) {
		enc.Encode(j)
	}
	for _, j := range snap.JobRows() {
		if !isFinishedSubjob(j) { // the reference store has them as rows
			enc.Encode(j.ID)
		}
	}
	return b.String()
}

// TestFinishedSubjobsReadBackIdentical runs the same array through a store
// that keeps finished subjobs compact and one that keeps full rows (the
// behaviour before compact records), and compares what readers see.
func TestFinishedSubjobsReadBackIdentical(t *testing.T) {
	ref := newHarness(t)
	ref.fsm.State().pack = nil // full rows, nothing shared: the reference
	cmp := newHarness(t)
	pid := arrayLife(ref)
	arrayLife(cmp)
	want, got := dumpJobs(t, ref.snap(), pid), dumpJobs(t, cmp.snap(), pid)
	if want != got {
		t.Fatalf("compact records read back differently: %s", firstDiff(want, got))
	}
	if n := cmp.snap().FinishedSubjobCount(); n != 11 {
		t.Fatalf("%d compact records, want the 11 finished subjobs not purged", n)
	}
	if n := ref.snap().FinishedSubjobCount(); n != 0 {
		t.Fatalf("reference store made %d compact records", n)
	}
	if len(cmp.snap().JobRows()) != 1 {
		t.Fatalf("job rows besides the parent: %d", len(cmp.snap().JobRows()))
	}

	// An old snapshot (full subjob rows, as the reference store and
	// every earlier version writes it) restores into compact records
	// that read back the same.
	old := persist(t, ref.fsm)
	restored := newHarness(t)
	if err := restored.fsm.Restore(io.NopCloser(bytes.NewReader(old))); err != nil {
		t.Fatal(err)
	}
	if got := dumpJobs(t, restored.snap(), pid); got != want {
		t.Fatalf("old snapshot restored differently: %s", firstDiff(want, got))
	}
	if restored.snap().FinishedSubjobCount() != 11 {
		t.Fatalf("old snapshot's subjob rows were not made compact")
	}
	// A snapshot of the compact store holds the same records as the old
	// one (finished subjobs after the other jobs) and restores the same.
	now := persist(t, cmp.fsm)
	if !sameLines(now, old) {
		t.Fatalf("snapshot of compact records has other records than the full rows':\nold %s\nnew %s", old, now)
	}
	again := newHarness(t)
	if err := again.fsm.Restore(io.NopCloser(bytes.NewReader(now))); err != nil {
		t.Fatal(err)
	}
	if got := dumpJobs(t, again.snap(), pid); got != want {
		t.Fatalf("new snapshot restored differently: %s", firstDiff(want, got))
	}

	// The history purge removes compact records as it did rows.
	for _, h := range []*harness{ref, cmp} {
		if n := h.apply(&PurgeHistory{Before: 1 << 40, Now: 1 << 40}); n != 12 {
			t.Fatalf("purge removed %v jobs, want the parent and 11 subjobs", n)
		}
	}
	if got, want := dumpJobs(t, cmp.snap(), pid), dumpJobs(t, ref.snap(), pid); got != want || cmp.snap().FinishedSubjobCount() != 0 {
		t.Fatalf("after purge: %s", firstDiff(want, got))
	}
}

// TestOldLogWithFullSubjobRowsReplays applies a log written by a store
// without compact records to a fresh FSM, as a restart replays it.
func TestOldLogWithFullSubjobRowsReplays(t *testing.T) {
	ref := newHarness(t)
	ref.fsm.State().pack = nil
	var entries [][]byte
	ref.record = &entries
	pid := arrayLife(ref)
	replay := newHarness(t)
	for _, data := range entries {
		replay.index++
		replay.fsm.Apply(&raft.Log{Index: replay.index, Type: raft.LogCommand, Data: data})
	}
	if got, want := dumpJobs(t, replay.snap(), pid), dumpJobs(t, ref.snap(), pid); got != want {
		t.Fatalf("replayed log reads back differently: %s", firstDiff(want, got))
	}
}

// TestSplitJoinSubjobKeepsEveryField fills every field of a job (also
// fields added to model.Job after this test was written) and checks a
// subjob split into template and record joins back to the same value.
func TestSplitJoinSubjobKeepsEveryField(t *testing.T) {
	j := &model.Job{}
	fillvalue.Fill(reflect.ValueOf(j).Elem(), 1)
	want := j.Dup() // its own JobExt: split clears j's
	r := splitSubjob(j)
	if got := joinSubjob(r); !reflect.DeepEqual(*got, want) {
		t.Fatalf("join(split(j)) differs:\nwant %+v\ngot  %+v", want, *got)
	}
}

// persist writes f's snapshot.
func persist(t *testing.T, f *FSM) []byte {
	t.Helper()
	snap, err := f.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	return sink.Bytes()
}

// firstDiff shows the first line where two dumps differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, a, b)
		}
	}
	return "no difference"
}

// sameLines reports whether two snapshots hold the same records, in any
// order.
func sameLines(a, b []byte) bool {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	slices.Sort(la)
	slices.Sort(lb)
	return slices.Equal(la, lb)
}
