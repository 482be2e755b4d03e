package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// Servers announce themselves to the leader: id, addresses and the command
// level their binary applies (raftstore/levels.go). The leader keeps the
// announcements in memory, in the manner of Nomad's serf member tags, and
// writes them into replicated state (ServerInfo) once every voter supports
// ServerInfo's level; from then on every server knows every other's API
// address (forwarding to a leader added at run time, peerAPI) and a new
// leader knows the levels at once. A voter that never announced (a release
// before levels) counts as level 1: new command types stay held back until
// it is replaced.

// announceEvery re-announces to the same leader (a leader forgets nothing
// while it leads; a new leader is announced to at once).
const announceEvery = 30 * time.Second

// memberLevels is what servers announced to this server while it leads.
type memberLevels struct {
	mu   sync.Mutex
	byID map[string]api.ServerAnnouncement
	// heldBack remembers the last "held back" message, logged once.
	heldBack string
}

func (m *memberLevels) set(a api.ServerAnnouncement) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID == nil {
		m.byID = map[string]api.ServerAnnouncement{}
	}
	m.byID[a.ID] = a
}

func (m *memberLevels) get(id string) (api.ServerAnnouncement, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.byID[id]
	return a, ok
}

// reset forgets every announcement (leadership ended: the next term
// starts from the replicated records and fresh announcements).
func (m *memberLevels) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byID, m.heldBack = nil, ""
}

// self is this server's own announcement.
func (s *Server) self() api.ServerAnnouncement {
	// The [[peer]] table's address is the one others reach (api_addr may
	// be a wildcard to bind).
	addr := s.cfg.peerAPI(s.node.ID)
	if addr == "" {
		addr = s.cfg.APIAddr
	}
	return api.ServerAnnouncement{ID: s.node.ID, RaftAddr: s.cfg.RaftAddr, APIAddr: addr, Level: raftstore.CommandLevel()}
}

// peerAPI returns the TCP API address of server id: from the [[peer]]
// tables, else from the replicated records, else from an announcement.
func (s *Server) peerAPI(id string) string {
	if a := s.cfg.peerAPI(id); a != "" {
		return a
	}
	if r := s.state().Server(id); r != nil && r.APIAddr != "" {
		return r.APIAddr
	}
	a, _ := s.members.get(id)
	return a.APIAddr
}

// levelOf is the command level server id is known to support: its
// announcement to this leader, else its replicated record; unknown counts
// as 1 (a release before levels announces nothing).
func (s *Server) levelOf(id string) (level int, known bool) {
	if id == s.node.ID {
		return raftstore.CommandLevel(), true
	}
	if a, ok := s.members.get(id); ok {
		return a.Level, true
	}
	if r := s.state().Server(id); r != nil {
		return r.Level, true
	}
	return 1, false
}

// clusterLevel is the highest command level every voter supports, and the
// voters below the highest level this binary knows.
func (s *Server) clusterLevel() (int, []string) {
	peers, err := s.node.Peers()
	if err != nil {
		return 1, nil
	}
	level := raftstore.CommandLevel()
	var behind []string
	for _, p := range peers {
		if !p.Voter {
			continue
		}
		l, known := s.levelOf(p.ID)
		if !known {
			behind = append(behind, p.ID+" has not announced its level")
		} else if l < raftstore.CommandLevel() {
			behind = append(behind, fmt.Sprintf("%s supports %d", p.ID, l))
		}
		level = min(level, l)
	}
	return level, behind
}

// levelAtLeast reports whether every voter supports command level l, for
// a request that needs it. Voters announce their level within a second of
// a leader's election, so a request in that second waits for the
// announcements (up to announceWait) instead of being refused as if a
// server were not upgraded.
func (s *Server) levelAtLeast(l int) bool {
	deadline := time.Now().Add(announceWait)
	for {
		got, _ := s.clusterLevel()
		if got >= l || s.unannounced() == 0 || time.Now().After(deadline) {
			return got >= l
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// announceWait bounds levelAtLeast's wait for voters' announcements.
const announceWait = 3 * time.Second

// unannounced counts the voters whose level the leader does not know.
func (s *Server) unannounced() int {
	peers, err := s.node.Peers()
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range peers {
		if _, known := s.levelOf(p.ID); p.Voter && !known {
			n++
		}
	}
	return n
}

// mayEmit reports whether the leader may propose a command of type t.
func (s *Server) mayEmit(t raftstore.MessageType) bool {
	l, _ := s.clusterLevel()
	return t.Level() <= l
}

// knownBelow reports whether a voter has announced a level below level.
//
// ServerInfo alone is gated by this instead of mayEmit: its records are
// how levels and addresses become known, so a voter that has not
// announced (it may not know where a leader added at run time listens,
// since that is in the very record held back) must not hold it back, or
// neither side ever learns of the other. A server too old to announce
// refuses the entry like any unknown type, which costs it nothing.
func (s *Server) knownBelow(level int) bool {
	peers, err := s.node.Peers()
	if err != nil {
		return true
	}
	for _, p := range peers {
		if l, known := s.levelOf(p.ID); p.Voter && known && l < level {
			return true
		}
	}
	return false
}

// serversLoop (leader) writes the servers' announcements into replicated
// state once every voter applies ServerInfo, and forgets servers that left
// the Raft configuration.
func (s *Server) serversLoop(ctx context.Context) {
	defer s.members.reset()
	s.members.set(s.self())
	every(ctx, time.Second, true, s.reconcileServers)
}

func (s *Server) reconcileServers() {
	peers, err := s.node.Peers()
	if err != nil || (len(peers) < 2 && len(s.state().Servers()) == 0) {
		return // a single server has no one to tell
	}
	var want []raftstore.ServerInfo
	inConfig := map[string]bool{}
	for _, p := range peers {
		inConfig[p.ID] = true
		a, ok := s.members.get(p.ID)
		if !ok {
			continue
		}
		r := s.state().Server(p.ID)
		if r == nil || r.APIAddr != a.APIAddr || r.RaftAddr != a.RaftAddr || r.Level != a.Level {
			want = append(want, raftstore.ServerInfo{ID: a.ID, RaftAddr: a.RaftAddr, APIAddr: a.APIAddr, Level: a.Level})
		}
	}
	for _, r := range s.state().Servers() {
		if !inConfig[r.ID] {
			want = append(want, raftstore.ServerInfo{ID: r.ID, Remove: true})
		}
	}
	if len(want) == 0 {
		return
	}
	if s.knownBelow(raftstore.ServerInfoType.Level()) {
		_, behind := s.clusterLevel()
		var ids []string
		for _, w := range want {
			ids = append(ids, w.ID)
		}
		msg := fmt.Sprintf("holding back ServerInfo for %s (command level %d): %s", strings.Join(ids, ", "), raftstore.ServerInfoType.Level(), strings.Join(behind, ", "))
		s.members.mu.Lock()
		if s.members.heldBack != msg {
			s.members.heldBack = msg
			s.logger.Print(msg)
		}
		s.members.mu.Unlock()
		return
	}
	for i := range want {
		if _, err := s.node.Apply(&want[i], 10*time.Second); err != nil {
			s.logger.Printf("record server %s: %v", want[i].ID, err)
			return
		}
		s.logger.Printf("recorded server %s (api %s, command level %d, removed %v)", want[i].ID, want[i].APIAddr, want[i].Level, want[i].Remove)
	}
}

// announceLoop (every server) announces this server to each new leader,
// and again every announceEvery.
func (s *Server) announceLoop(ctx context.Context) {
	var lastLeader string
	var lastAt time.Time
	every(ctx, time.Second, false, func() {
		leader, _ := s.node.Leader()
		if leader == "" || leader == s.node.ID {
			lastLeader = ""
			return
		}
		if leader == lastLeader && time.Since(lastAt) < announceEvery {
			return
		}
		if err := s.announce(ctx, leader); err != nil {
			s.logger.Printf("announce to leader %s: %v", leader, err)
			return
		}
		lastLeader, lastAt = leader, time.Now()
	})
}

// announce sends this server's announcement to the leader over mutual TLS
// (the leader believes it only from a server-role certificate).
func (s *Server) announce(ctx context.Context, leader string) error {
	addr := s.peerAPI(leader)
	if addr == "" {
		return fmt.Errorf("API address of %s unknown", leader)
	}
	body, _ := json.Marshal(s.self())
	who, _ := json.Marshal(&Identity{User: "root", Host: s.node.ID})
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://"+addr+api.Version+"/operator/raft/announce", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(OnBehalfHeader, string(who))
	resp, err := s.forwarder.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("leader answered %s", resp.Status)
	}
	return nil
}

// handleAnnounce (leader) takes a server's announcement. Only a server of
// the cluster may announce: the request must come over mutual TLS with a
// server-role certificate (Forwarded is set only then, identity.go).
func (s *Server) handleAnnounce(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	if !id.Forwarded {
		return nil, model.Errorf(model.PBSEPerm, "(only a server of the cluster may announce itself)")
	}
	var a api.ServerAnnouncement
	if err := decodeBody(r, &a); err != nil {
		return nil, err
	}
	if a.ID == "" || len(a.ID) > 256 || len(a.APIAddr) > 256 || len(a.RaftAddr) > 256 || a.Level < 1 || a.Level > 255 {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: bad server announcement"}
	}
	if !s.node.IsLeader() {
		return nil, model.Err(model.PBSENotLeader)
	}
	if old, ok := s.members.get(a.ID); !ok || old != a {
		s.logger.Printf("server %s announced: api %s, command level %d", a.ID, a.APIAddr, a.Level)
	}
	s.members.set(a)
	return nil, nil
}

// levelsView is the command-level part of list-peers.
func (s *Server) levelsView(out *api.RaftPeersResponse) {
	for i := range out.Peers {
		if l, known := s.levelOf(out.Peers[i].ID); known {
			out.Peers[i].Level = l
		}
	}
	sort.SliceStable(out.Peers, func(i, k int) bool { return out.Peers[i].ID < out.Peers[k].ID })
	out.CommandLevel, out.Behind = s.clusterLevel()
}
