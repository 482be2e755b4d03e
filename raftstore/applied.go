package raftstore

import "github.com/hashicorp/raft"

// Read-your-writes across servers compares how far two FSMs have applied
// the same log. Raft's own AppliedIndex is not that: it moves when entries
// are handed to the FSM goroutine, before they are in the state, and it
// counts entries the FSM never sees (no-ops, barriers). The FSM's index
// counts the entries it was given (commands and configuration changes,
// the same on every server) once they are committed to the state; after a
// snapshot is restored it is the snapshot's index.

// setApplied records the last entry of an applied batch.
func (f *FSM) setApplied(logs []*raft.Log) {
	if len(logs) > 0 {
		f.applied.Store(logs[len(logs)-1].Index)
	}
}

// Applied is the index of the last entry in the state.
func (f *FSM) Applied() uint64 { return f.applied.Load() }

// latestSnapshotIndex is what Restore learns the restored index from: Raft
// restores only the newest snapshot of the store (at start, when a follower
// installs one from the leader, and for a user restore, which is first
// written to the store).
func latestSnapshotIndex(snaps raft.SnapshotStore) func() uint64 {
	return func() uint64 {
		list, err := snaps.List()
		if err != nil || len(list) == 0 {
			return 0
		}
		return list[0].Index
	}
}
