package raftstore

import (
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// Entries the FSM cannot apply, committed through real Raft with the log on
// disk: an unknown command type (a newer leader's), a payload that does
// not decode and one whose handler panics. Each is answered with an error,
// changes nothing, and the entries around it (in the same group-committed
// batch) apply normally; after a restart the log replays through them.
func TestUnapplicableEntriesAreRefusedAndReplayed(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	n := openNode(t, dir, addr, 8192)
	configureNode(t, n)
	enc := func(c Command) []byte {
		b, err := Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// A nil vnode makes the register handler dereference nil after it has
	// written to the transaction: the partial write must be undone.
	panicky := enc(&RegisterHost{Host: "ghost", Vnodes: []*model.Vnode{nil}, Now: 5})
	entries := [][]byte{
		{250, '{', '}'}, // unknown type
		enc(&SubmitJob{Job: testJob("a"), Now: 10}),
		append([]byte{byte(SubmitJobType)}, "not json"...),
		panicky,
		enc(&SubmitJob{Job: testJob("b"), Now: 11}),
		{}, // empty
	}
	// Issued without waiting, so that Raft may commit them as one batch.
	futures := make([]raft.ApplyFuture, len(entries))
	for i, e := range entries {
		futures[i] = n.Raft.Apply(e, 5*time.Second)
	}
	wantErr := []bool{true, false, true, true, false, true}
	for i, f := range futures {
		if err := f.Error(); err != nil {
			t.Fatalf("entry %d: raft error %v", i, err)
		}
		_, isErr := f.Response().(error)
		if isErr != wantErr[i] {
			t.Fatalf("entry %d: response %v, want error=%v", i, f.Response(), wantErr[i])
		}
	}
	check := func(n *Node) {
		t.Helper()
		snap := n.FSM.State().Snapshot()
		if snap.Job("0.svr") == nil || snap.Job("1.svr") == nil || snap.NextSeq() != 2 {
			t.Fatalf("jobs around the refused entries: 0=%v 1=%v next=%d", snap.Job("0.svr") != nil, snap.Job("1.svr") != nil, snap.NextSeq())
		}
		// The work index the panicking register wrote first was undone.
		if idx, _ := snap.TableIndex(HostWorkKey("ghost")); idx != 0 {
			t.Fatalf("partial write of the panicking entry kept: index %d", idx)
		}
	}
	check(n)
	if err := n.Shutdown(); err != nil {
		t.Fatal(err)
	}
	n2 := openNode(t, dir, addr, 8192)
	defer n2.Shutdown()
	if err := n2.Raft.Barrier(5 * time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	check(n2)
	id, err := n2.Apply(&SubmitJob{Job: testJob("c"), Now: 12}, 5*time.Second)
	if err != nil || id != "2.svr" {
		t.Fatalf("submit after replay: %v %v", id, err)
	}
}
