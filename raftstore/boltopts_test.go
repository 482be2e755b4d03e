package raftstore

import (
	"path/filepath"
	"testing"

	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"
)

// TestBoltLogOpensAcrossFreelistModes: a raft.db written by an earlier
// release (bolt's freelist synced in the file) opens with boltOptions and
// keeps every entry, and a file written with boltOptions (no freelist in
// the file) opens again with bolt's defaults, as a downgrade would: both
// ways every committed entry is there and new ones can be appended.
func TestBoltLogOpensAcrossFreelistModes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raft.db")
	modes := []*bbolt.Options{nil, boltOptions(), nil, boltOptions()}
	next := uint64(1)
	for round, opts := range modes {
		s, err := raftboltdb.New(raftboltdb.Options{Path: path, BoltOptions: opts})
		if err != nil {
			t.Fatalf("round %d: open: %v", round, err)
		}
		for i := uint64(1); i < next; i++ {
			var l raft.Log
			if err := s.GetLog(i, &l); err != nil || string(l.Data) != string(rune('a'+i%26)) {
				t.Fatalf("round %d: entry %d: %v %q", round, i, err, l.Data)
			}
		}
		var batch []*raft.Log
		for k := 0; k < 50; k++ {
			batch = append(batch, &raft.Log{Index: next, Term: 1, Type: raft.LogCommand, Data: []byte(string(rune('a' + next%26)))})
			next++
		}
		if err := s.StoreLogs(batch); err != nil {
			t.Fatalf("round %d: store: %v", round, err)
		}
		// Free pages, as log compaction after a snapshot makes them.
		if round > 0 {
			if err := s.DeleteRange(next-50, next-40); err != nil {
				t.Fatal(err)
			}
			for i := next - 50; i <= next-40; i++ {
				batch := []*raft.Log{{Index: i, Term: 1, Type: raft.LogCommand, Data: []byte(string(rune('a' + i%26)))}}
				if err := s.StoreLogs(batch); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
