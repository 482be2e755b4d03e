package raftstore

import (
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// configureNode commits a minimal server configuration (one queue, job
// history on), which every request but SetServerConfig needs.
func configureNode(t *testing.T, n *Node) {
	t.Helper()
	cfg := model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), JobHistoryEnable: true,
		Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true}}}
	if _, err := n.Apply(&SetServerConfig{Config: cfg}, time.Second); err != nil {
		t.Fatal(err)
	}
}

func openNode(t *testing.T, dir, addr string, threshold uint64) *Node {
	t.Helper()
	fsm, err := NewFSM(log.New(io.Discard, "", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Open(Config{DataDir: dir, BindAddr: addr, Bootstrap: true, Fast: true, TLS: testTLS(t, dir),
		SnapshotThreshold: threshold, TrailingLogs: 16, SnapshotInterval: 50 * time.Millisecond, LogOutput: io.Discard}, fsm)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !n.IsLeader() {
		if time.Now().After(deadline) {
			t.Fatal("single server never became leader")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return n
}

// TestRestartRestoresCommittedState submits through real Raft with the bolt
// store on disk, shuts down and reopens the same directory: every
// acknowledged job must be there, with the counter intact.
func TestRestartRestoresCommittedState(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	n := openNode(t, dir, addr, 8192)
	configureNode(t, n)
	var ids []string
	for i := 0; i < 20; i++ {
		id, err := n.Apply(&SubmitJob{Job: testJob(fmt.Sprint("tok", i)), Now: 100}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id.(string))
	}
	if err := n.Shutdown(); err != nil {
		t.Fatal(err)
	}
	n2 := openNode(t, dir, addr, 8192)
	defer n2.Shutdown()
	// Replay happens before leadership; wait for the FSM to catch up.
	if err := n2.Raft.Barrier(5 * time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	snap := n2.FSM.State().Snapshot()
	for _, id := range ids {
		if snap.Job(id) == nil {
			t.Fatalf("job %s lost across restart", id)
		}
	}
	if got := snap.NextSeq(); got != 20 {
		t.Fatalf("counter after restart = %d, want 20", got)
	}
}

// TestSnapshotsCompactTheLog checks that snapshots are taken and that a
// restart restores from the snapshot plus the trailing log.
func TestSnapshotsCompactTheLog(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	n := openNode(t, dir, addr, 64)
	cfg := model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), JobHistoryEnable: true}
	n.Apply(&SetServerConfig{Config: cfg}, time.Second)
	for i := 0; i < 300; i++ {
		if _, err := n.Apply(&SubmitJob{Job: testJob(fmt.Sprint("t", i)), Now: 1}, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Raft.Snapshot().Error(); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "snapshots", "*", "state.bin"))
	if len(snaps) == 0 {
		t.Fatal("no snapshot written")
	}
	if n.Raft.Stats()["last_snapshot_index"] == "0" {
		t.Fatal("last_snapshot_index is 0")
	}
	n.Shutdown()
	n2 := openNode(t, dir, addr, 64)
	defer n2.Shutdown()
	n2.Raft.Barrier(5 * time.Second).Error()
	if got := len(n2.FSM.State().Snapshot().Jobs()); got != 300 {
		t.Fatalf("%d jobs after restore from snapshot, want 300", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "raft.db")); err != nil {
		t.Fatal(err)
	}
}
