package raftstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// threeNodes starts a real three-server Raft cluster over mutual TLS,
// bootstrapped from the same peer list on every server.
func threeNodes(t *testing.T) []*Node {
	t.Helper()
	base := t.TempDir()
	var peers []raft.Server
	addrs := []string{freeAddr(t), freeAddr(t), freeAddr(t)}
	for i, a := range addrs {
		peers = append(peers, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(fmt.Sprint("s", i+1)), Address: raft.ServerAddress(a)})
	}
	var nodes []*Node
	for i, a := range addrs {
		dir := filepath.Join(base, fmt.Sprint("s", i+1))
		fsm, err := NewFSM(log.New(io.Discard, "", 0), nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Open(Config{DataDir: dir, BindAddr: a, Bootstrap: true, LocalID: fmt.Sprint("s", i+1), Peers: peers,
			Fast: true, TLS: testTLS(t, dir), LogOutput: io.Discard}, fsm)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Shutdown() })
		nodes = append(nodes, n)
	}
	return nodes
}

func leaderOf(t *testing.T, nodes []*Node) *Node {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range nodes {
			if n.IsLeader() {
				return n
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no leader elected")
	return nil
}

// TestThreeServers: only the leader commits; a follower that waits for the
// leader's index reads the write; a leader that handed over leadership can
// no longer commit; snapshots save on a follower and restore everywhere.
func TestThreeServers(t *testing.T) {
	nodes := threeNodes(t)
	lead := leaderOf(t, nodes)
	cfg := model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), JobHistoryEnable: true,
		Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true}}}
	if _, err := lead.Apply(&SetServerConfig{Config: cfg}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	id, err := lead.Apply(&SubmitJob{Job: testJob("t1"), Now: 100}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	peers, err := lead.Peers()
	if err != nil || len(peers) != 3 {
		t.Fatalf("peers: %v %v", peers, err)
	}
	var follower *Node
	for _, n := range nodes {
		if n != lead {
			follower = n
			break
		}
	}
	if _, err := follower.Apply(&SubmitJob{Job: testJob("t2"), Now: 100}, time.Second); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("a follower committed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := follower.WaitApplied(ctx, lead.AppliedIndex()); err != nil {
		t.Fatal(err)
	}
	if follower.FSM.State().Snapshot().Job(id.(string)) == nil {
		t.Fatalf("follower caught up to the leader's index but lacks %s", id)
	}

	// Save on a follower, submit more, restore on the leader: the later
	// job is gone everywhere.
	var snap bytes.Buffer
	if err := follower.SaveSnapshot(&snap); err != nil {
		t.Fatal(err)
	}
	later, err := lead.Apply(&SubmitJob{Job: testJob("t3"), Now: 100}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := lead.RestoreSnapshot(bytes.NewReader(snap.Bytes()), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if err := n.WaitApplied(ctx, lead.AppliedIndex()); err != nil {
			t.Fatal(err)
		}
		st := n.FSM.State().Snapshot()
		if st.Job(later.(string)) != nil || st.Job(id.(string)) == nil {
			t.Fatalf("server %s after restore: later job present %v, saved job present %v", n.ID, st.Job(later.(string)) != nil, st.Job(id.(string)) != nil)
		}
	}

	// A deposed leader's decisions never commit.
	if err := lead.Raft.LeadershipTransfer().Error(); err != nil {
		t.Fatal(err)
	}
	if _, err := lead.Apply(&SubmitJob{Job: testJob("t4"), Now: 100}, time.Second); !errors.Is(err, ErrNotLeader) {
		t.Fatalf("the deposed leader committed: %v", err)
	}
	if next := leaderOf(t, nodes); next == lead {
		t.Fatal("leadership did not move")
	}
}
