package raftstore

import (
	"bytes"
	"io"
	"testing"

	"github.com/hashicorp/raft"
)

// The same log applied by a server of the previous release (command level
// 1) and by a current one: the old server refuses the level-2 entry like
// an unknown type and applies everything around it, the new one records
// the server; both end with the same jobs.
func TestCommandLevelsOldServerKeepsApplying(t *testing.T) {
	if CommandLevel() != maxLevel || ServerInfoType.Level() != 2 || SubmitJobType.Level() != 1 {
		t.Fatalf("levels: binary %d, ServerInfo %d, SubmitJob %d", CommandLevel(), ServerInfoType.Level(), SubmitJobType.Level())
	}
	var entries []*raft.Log
	for i, c := range []Command{
		&SubmitJob{Job: testJob("a"), Now: 10},
		&ServerInfo{ID: "server4", APIAddr: "10.0.0.4:15001", RaftAddr: "10.0.0.4:15002", Level: 2},
		&SubmitJob{Job: testJob("b"), Now: 11},
	} {
		b, err := Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, &raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: b})
	}
	newFSM := func(level int) *FSM {
		f, err := NewFSM(nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.level = level
		return f
	}
	old, cur := newFSM(1), newFSM(2)
	resOld, resCur := old.ApplyBatch(entries), cur.ApplyBatch(entries)
	if _, isErr := resOld[1].(error); !isErr {
		t.Fatalf("the level-1 server applied ServerInfo: %v", resOld[1])
	}
	if resCur[1] != nil {
		t.Fatalf("the level-2 server refused ServerInfo: %v", resCur[1])
	}
	for name, f := range map[string]*FSM{"old": old, "current": cur} {
		snap := f.State().Snapshot()
		if len(snap.Jobs()) != 2 || f.Applied() != 3 {
			t.Fatalf("%s server: jobs around the level-2 entry not applied (applied %d)", name, f.Applied())
		}
	}
	if r := cur.State().Snapshot().Server("server4"); r == nil || r.APIAddr != "10.0.0.4:15001" || r.Level != 2 {
		t.Fatalf("server record: %+v", r)
	}
	if old.State().Snapshot().Server("server4") != nil {
		t.Fatal("the level-1 server has a server record")
	}

	// Records survive a snapshot; Remove forgets one.
	snap, _ := cur.Snapshot()
	sink := &memSink{}
	if err := snap.Persist(sink); err != nil {
		t.Fatal(err)
	}
	restored := newFSM(2)
	if err := restored.Restore(io.NopCloser(bytes.NewReader(sink.Bytes()))); err != nil {
		t.Fatal(err)
	}
	if restored.State().Snapshot().Server("server4") == nil {
		t.Fatal("server record lost in the snapshot")
	}
	b, _ := Encode(&ServerInfo{ID: "server4", Remove: true})
	restored.Apply(&raft.Log{Index: 4, Type: raft.LogCommand, Data: b})
	if restored.State().Snapshot().Server("server4") != nil {
		t.Fatal("Remove kept the record")
	}
}
