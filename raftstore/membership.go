package raftstore

import (
	"context"
	"fmt"
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

// AppliedIndex is the index of the last entry this node's FSM applied.
func (n *Node) AppliedIndex() uint64 { return n.Raft.AppliedIndex() }

// WaitApplied waits until this node's FSM has applied index: a follower
// that forwarded a write waits for it before answering, so the caller's
// next read on this follower sees the write (read-your-writes).
func (n *Node) WaitApplied(ctx context.Context, index uint64) error {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for n.Raft.AppliedIndex() < index {
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for index %d (applied %d): %w", index, n.Raft.AppliedIndex(), ctx.Err())
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

// RemoveServer removes a server from the configuration (leader only).
func (n *Node) RemoveServer(id string, timeout time.Duration) error {
	if err := n.Raft.RemoveServer(raft.ServerID(id), 0, timeout).Error(); err != nil {
		return fmt.Errorf("remove server %s: %w", id, err)
	}
	return nil
}
