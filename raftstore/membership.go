package raftstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/raft"
)

// Peer is one member of the Raft configuration as the operator commands
// show it.
type Peer struct {
	ID       string `json:"id"`
	Address  string `json:"address"`
	Voter    bool   `json:"voter"`
	Leader   bool   `json:"leader"`
	Suffrage string `json:"suffrage"`
}

// State is this node's Raft role: "leader", "follower", "candidate" or
// "shutdown".
func (n *Node) State() string {
	switch n.Raft.State() {
	case raft.Leader:
		return "leader"
	case raft.Follower:
		return "follower"
	case raft.Candidate:
		return "candidate"
	}
	return "shutdown"
}

// Leader returns the current leader's Raft id and address ("" when none
// is known to this node).
func (n *Node) Leader() (id, addr string) {
	a, i := n.Raft.LeaderWithID()
	return string(i), string(a)
}

// AppliedIndex is the index of the last entry this node's FSM has put in
// its state (applied.go).
func (n *Node) AppliedIndex() uint64 { return n.FSM.Applied() }

// WaitApplied waits until this node's FSM has applied index: a follower
// that forwarded a write waits for it before answering, so the caller's
// next read on this follower sees the write (read-your-writes).
func (n *Node) WaitApplied(ctx context.Context, index uint64) error {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for n.AppliedIndex() < index {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for index %d (applied %d): %w", index, n.AppliedIndex(), ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// Peers lists the Raft configuration.
func (n *Node) Peers() ([]Peer, error) {
	f := n.Raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("raft configuration: %w", err)
	}
	leaderID, _ := n.Leader()
	var out []Peer
	for _, s := range f.Configuration().Servers {
		out = append(out, Peer{ID: string(s.ID), Address: string(s.Address), Voter: s.Suffrage == raft.Voter,
			Leader: string(s.ID) == leaderID, Suffrage: s.Suffrage.String()})
	}
	return out, nil
}

// AddVoter adds a server to the configuration (leader only).
func (n *Node) AddVoter(id, addr string, timeout time.Duration) error {
	if err := n.Raft.AddVoter(raft.ServerID(id), raft.ServerAddress(addr), 0, timeout).Error(); err != nil {
		return fmt.Errorf("add voter %s at %s: %w", id, addr, err)
	}
	return nil
}

// TransferLeadership hands leadership to server id at addr (leader only)
// and waits until it is done.
func (n *Node) TransferLeadership(id, addr string) error {
	if err := n.Raft.LeadershipTransferToServer(raft.ServerID(id), raft.ServerAddress(addr)).Error(); err != nil {
		return fmt.Errorf("transfer leadership to %s: %w", id, err)
	}
	return nil
}

// RemoveServer removes a server from the configuration (leader only).
func (n *Node) RemoveServer(id string, timeout time.Duration) error {
	if err := n.Raft.RemoveServer(raft.ServerID(id), 0, timeout).Error(); err != nil {
		return fmt.Errorf("remove server %s: %w", id, err)
	}
	return nil
}

// SnapshotHeader is the first line of a saved snapshot file (JSON): what
// Raft needs to restore the bytes that follow.
type SnapshotHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Index   uint64 `json:"index"`
	Term    uint64 `json:"term"`
	Size    int64  `json:"size"`
}

// SnapshotFormat names the file format of SaveSnapshot.
const SnapshotFormat = "strata-snapshot-1"

// SaveSnapshot writes a snapshot of the state to w: a JSON header line,
// then the FSM snapshot bytes. It takes a fresh snapshot, or uses the
// latest one when nothing was committed since.
func (n *Node) SaveSnapshot(w io.Writer) error {
	var meta *raft.SnapshotMeta
	var rc io.ReadCloser
	f := n.Raft.Snapshot()
	err := f.Error()
	switch {
	case err == nil:
		meta, rc, err = f.Open()
	case errors.Is(err, raft.ErrNothingNewToSnapshot):
		var list []*raft.SnapshotMeta
		if list, err = n.snaps.List(); err == nil && len(list) > 0 {
			meta, rc, err = n.snaps.Open(list[0].ID)
		} else if err == nil {
			err = errors.New("no snapshot exists yet")
		}
	}
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer rc.Close()
	hdr, _ := json.Marshal(SnapshotHeader{Format: SnapshotFormat, Version: int(meta.Version), Index: meta.Index, Term: meta.Term, Size: meta.Size})
	if _, err := w.Write(append(hdr, '\n')); err != nil {
		return err
	}
	if _, err := io.Copy(w, rc); err != nil {
		return fmt.Errorf("write snapshot: %w", err)
	}
	return nil
}

// RestoreSnapshot replaces the whole replicated state with a saved
// snapshot (leader only): Raft installs it on every server, and the log
// continues after it.
func (n *Node) RestoreSnapshot(r io.Reader, timeout time.Duration) error {
	br := bufio.NewReader(r)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("snapshot header: %w", err)
	}
	var hdr SnapshotHeader
	if err := json.Unmarshal(line, &hdr); err != nil || hdr.Format != SnapshotFormat {
		return fmt.Errorf("not a Strata snapshot file (header %.60q)", line)
	}
	meta := &raft.SnapshotMeta{Version: raft.SnapshotVersion(hdr.Version), Index: hdr.Index, Term: hdr.Term, Size: hdr.Size}
	if err := n.Raft.Restore(meta, br, timeout); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	return nil
}
