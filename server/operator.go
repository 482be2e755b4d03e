package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// strata operator: Raft membership and snapshots, for managers only, in
// the manner of Nomad's and Consul's operator commands. Reads (list-peers,
// snapshot save) are answered by the server asked; changes go to the
// leader (forwarded like every write, forward.go).

func (s *Server) operatorRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("GET "+v+"/operator/raft/peers", s.wrap(s.handleListPeers, false))
	mux.Handle("POST "+v+"/operator/raft/peers", s.wrap(s.handleAddPeer, false))
	mux.Handle("POST "+v+"/operator/raft/peers/remove", s.wrap(s.handleRemovePeer, false))
	mux.Handle("POST "+v+"/operator/raft/transfer", s.wrap(s.handleTransferLeader, false))
	mux.Handle("POST "+v+"/operator/raft/announce", s.wrap(s.handleAnnounce, false)) // levels.go
	mux.Handle("GET "+v+"/operator/snapshot", s.wrap(s.handleSnapshotSave, false))
	mux.Handle("POST "+v+"/operator/snapshot", s.wrap(s.handleSnapshotRestore, false))
	// The liveness probe of clients of several servers (api/stall.go):
	// no identity, no state, no read barrier; it only shows the process
	// answers.
	mux.HandleFunc("GET "+v+api.PingPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}\n"))
	})
}

// mustManage refuses everyone but managers.
func (s *Server) mustManage(id *Identity) error {
	cfg := s.state().Config()
	if !isManager(id, &cfg) {
		return model.Err(model.PBSEPerm)
	}
	return nil
}

func (s *Server) handleListPeers(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	if err := s.mustManage(id); err != nil {
		return nil, err
	}
	peers, err := s.node.Peers()
	if err != nil {
		return nil, err
	}
	out := api.RaftPeersResponse{}
	for _, p := range peers {
		out.Peers = append(out.Peers, api.RaftPeer{ID: p.ID, Address: p.Address, Voter: p.Voter, Leader: p.Leader, APIAddr: s.peerAPI(p.ID)})
	}
	s.levelsView(&out)
	return out, nil
}

func (s *Server) handleAddPeer(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.RaftPeerRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := s.mustManage(id); err != nil {
		return nil, err
	}
	if req.ID == "" || req.Address == "" {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: add-peer needs an id and a raft address"}
	}
	if !s.node.IsLeader() {
		return nil, model.Err(model.PBSENotLeader)
	}
	if err := s.node.AddVoter(req.ID, req.Address, 30*time.Second); err != nil {
		return nil, &model.PBSError{Code: model.PBSESystem, Msg: model.Message(model.PBSESystem) + err.Error()}
	}
	s.logger.Printf("raft: %s@%s added %s at %s", id.User, id.Host, req.ID, req.Address)
	return nil, nil
}

// membershipRequest decodes a membership change and checks that a manager
// asks the leader; it returns the request and the current configuration.
func (s *Server) membershipRequest(r *http.Request, id *Identity) (api.RaftPeerRequest, []raftstore.Peer, error) {
	var req api.RaftPeerRequest
	if err := decodeBody(r, &req); err != nil {
		return req, nil, err
	}
	if err := s.mustManage(id); err != nil {
		return req, nil, err
	}
	if !s.node.IsLeader() {
		return req, nil, model.Err(model.PBSENotLeader)
	}
	peers, err := s.node.Peers()
	return req, peers, err
}

func (s *Server) handleTransferLeader(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	req, peers, err := s.membershipRequest(r, id)
	if err != nil {
		return nil, err
	}
	for _, p := range peers {
		if p.ID == req.ID && p.Voter && p.ID != s.node.ID {
			if err := s.node.TransferLeadership(p.ID, p.Address); err != nil {
				return nil, &model.PBSError{Code: model.PBSESystem, Msg: model.Message(model.PBSESystem) + err.Error()}
			}
			s.logger.Printf("raft: %s@%s handed leadership to %s", id.User, id.Host, p.ID)
			return nil, nil
		}
	}
	return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: no other voting server " + req.ID}
}

func (s *Server) handleRemovePeer(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	req, peers, err := s.membershipRequest(r, id)
	if err != nil {
		return nil, err
	}
	known := false
	for _, p := range peers {
		known = known || p.ID == req.ID || (req.ID == "" && p.Address == req.Address)
		if req.ID == "" && p.Address == req.Address {
			req.ID = p.ID
		}
	}
	if !known {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: no such peer " + req.ID + req.Address}
	}
	if err := s.node.RemoveServer(req.ID, 30*time.Second); err != nil {
		return nil, &model.PBSError{Code: model.PBSESystem, Msg: model.Message(model.PBSESystem) + err.Error()}
	}
	s.logger.Printf("raft: %s@%s removed %s", id.User, id.Host, req.ID)
	return nil, nil
}

func (s *Server) handleSnapshotSave(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	if err := s.mustManage(id); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.node.SaveSnapshot(&buf); err != nil {
		return nil, err
	}
	return api.Snapshot{Data: buf.Bytes()}, nil
}

// streamedBody reports whether r is a snapshot restore: its body is not
// read into memory by limitRequests (a snapshot may be far larger than
// max_body_bytes) but streamed by handleSnapshotRestore, which first
// checks that the caller is a manager, then bounds the size
// (max_snapshot_bytes) and the time between reads (read_timeout).
func streamedBody(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == api.Version+"/operator/snapshot"
}

func (s *Server) handleSnapshotRestore(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	// Identity first: nobody else gets a single byte of the body read.
	if err := s.mustManage(id); err != nil {
		return nil, err
	}
	if !s.node.IsLeader() {
		return nil, model.Err(model.PBSENotLeader)
	}
	if ct := r.Header.Get("Content-Type"); ct != api.SnapshotContentType {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: a snapshot restore is sent as " + api.SnapshotContentType + ", not " + ct}
	}
	lim := s.cfg.Limits.withDefaults()
	body := &boundedBody{r: r.Body, left: lim.MaxSnapshotBytes, idle: lim.ReadTimeout.Duration, rc: http.NewResponseController(w)}
	defer body.rc.SetReadDeadline(time.Time{})
	if err := s.node.RestoreSnapshot(body, 10*time.Minute); err != nil {
		if body.over {
			return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: fmt.Sprintf("Invalid request: snapshot larger than limits.max_snapshot_bytes (%d)", lim.MaxSnapshotBytes)}
		}
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: " + err.Error()}
	}
	s.logger.Printf("raft: %s@%s restored a snapshot (%d bytes)", id.User, id.Host, body.n)
	return nil, nil
}

// boundedBody streams a request body: at most left bytes, and each read
// must make progress within idle (a client that stops sending is cut off,
// however long the whole upload takes).
type boundedBody struct {
	r    io.Reader
	left int64
	n    int64
	idle time.Duration
	rc   *http.ResponseController
	over bool
}

var errSnapshotTooLarge = errors.New("snapshot larger than limits.max_snapshot_bytes")

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more than allowed tells "too large" from "exactly at
		// the limit".
		var one [1]byte
		if n, _ := b.r.Read(one[:]); n > 0 {
			b.over = true
			return 0, errSnapshotTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	b.rc.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.r.Read(p)
	b.left -= int64(n)
	b.n += int64(n)
	return n, err
}
