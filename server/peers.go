package server

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Peer is one [[peer]] table: a server of a multi-server (high
// availability) cluster. Every server's file lists the same peers, itself
// included; a new cluster bootstraps its Raft configuration from them, and
// a follower forwards writes to the leader's APIAddr (forward.go).
type Peer struct {
	// ID is the server's Raft id (its node_id).
	ID string `toml:"id"`
	// RaftAddr is where the other servers reach its Raft transport.
	RaftAddr string `toml:"raft_addr"`
	// APIAddr is its TCP API (HTTPS), where followers forward writes.
	APIAddr string `toml:"api_addr"`
}

// validatePeers checks the [[peer]] tables and node_id.
func (c *Config) validatePeers() error {
	if len(c.Peers) == 0 {
		return nil
	}
	if c.NodeID == "" {
		return fmt.Errorf("config key node_id: must be set when [[peer]] tables are given (the id of this server among them)")
	}
	seen := map[string]bool{}
	self := false
	for _, p := range c.Peers {
		switch {
		case p.ID == "" || strings.ContainsAny(p.ID, " \t\n"):
			return fmt.Errorf("config key peer.id: %q is not a valid id", p.ID)
		case seen[p.ID]:
			return fmt.Errorf("config key peer.id: %q is listed twice", p.ID)
		case !strings.Contains(p.RaftAddr, ":"):
			return fmt.Errorf("config key peer.raft_addr: %q is not host:port (peer %s)", p.RaftAddr, p.ID)
		case !strings.Contains(p.APIAddr, ":"):
			return fmt.Errorf("config key peer.api_addr: %q is not host:port (peer %s)", p.APIAddr, p.ID)
		}
		seen[p.ID] = true
		if p.ID == c.NodeID {
			self = true
			if p.RaftAddr != c.RaftAddr {
				return fmt.Errorf("config key peer.raft_addr: peer %s (this server) says %s but raft_addr is %s", p.ID, p.RaftAddr, c.RaftAddr)
			}
		}
	}
	if !self {
		return fmt.Errorf("config key node_id: %q is not one of the [[peer]] ids", c.NodeID)
	}
	return nil
}

// raftPeers is the bootstrap configuration: every peer a voter.
func (c *Config) raftPeers() []raft.Server {
	var out []raft.Server
	for _, p := range c.Peers {
		out = append(out, raft.Server{Suffrage: raft.Voter, ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.RaftAddr)})
	}
	return out
}

// peerAPI returns the API address of the server with Raft id id, from the
// configuration, or "" when it is not listed (a peer added at run time
// announces its address in its Raft address's stead: see apiAddrOf).
func (c *Config) peerAPI(id string) string {
	for _, p := range c.Peers {
		if p.ID == id {
			return p.APIAddr
		}
	}
	return ""
}

// raftInfo is this server's Raft role for GET /server, nil when the
// cluster has a single server (its output then stays as it always was).
func (s *Server) raftInfo() *api.RaftInfo {
	peers, err := s.node.Peers()
	if err != nil {
		return nil
	}
	voters := 0
	for _, p := range peers {
		if p.Voter {
			voters++
		}
	}
	if len(peers) < 2 && len(s.cfg.Peers) < 2 {
		return nil
	}
	leader, _ := s.node.Leader()
	return &api.RaftInfo{ID: s.node.ID, State: s.node.State(), Leader: leader, Voters: voters, Applied: s.node.AppliedIndex()}
}

// leadershipLost returns a channel closed when this server's current
// leadership ends (already closed when it does not lead): agents' long
// polls end with "not leader" so they move on to the new leader.
func (s *Server) leadershipLost() <-chan struct{} {
	s.leadMu.Lock()
	defer s.leadMu.Unlock()
	if s.leadEnd == nil || !s.node.IsLeader() {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return s.leadEnd
}

// waitLeaderReady waits, while this server leads, until its leadership
// barrier has passed (watchLeadership: the FSM then holds every entry
// committed before this term). Raft reports leadership at once after an
// election, when the FSM may still lag the log by many entries: a server
// restarted on an old snapshot can win an election and only then apply
// what it had in its log. Answering from that state, a new leader told an
// agent that a job finished long before was still to run, and the agent,
// which had already forgotten it, ran it again (found by TestHAChaos).
func (s *Server) waitLeaderReady(ctx context.Context) error {
	deadline := time.Now().Add(leaderReadyWait)
	for {
		s.leadMu.Lock()
		ready := s.leadEnd != nil
		s.leadMu.Unlock()
		switch {
		case ready:
			return nil
		case !s.node.IsLeader() || time.Now().After(deadline):
			return &model.PBSError{Code: model.PBSENotLeader, Msg: "Server has no leader (its state may be old); retry"}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// leaderReadyWait bounds how long a request waits for a new leader's
// barrier before it is answered "not leader" (the client retries).
const leaderReadyWait = 10 * time.Second

// setLeading opens (true) or closes (false) the current leadership.
func (s *Server) setLeading(on bool) {
	s.leadMu.Lock()
	defer s.leadMu.Unlock()
	if s.leadEnd != nil {
		close(s.leadEnd)
		s.leadEnd = nil
	}
	if on {
		s.leadEnd = make(chan struct{})
	}
}
