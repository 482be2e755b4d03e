package server

import (
	"bytes"
	"net/http"
	"time"

	"github.com/strata-hpc/strata/model"
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
		out.Peers = append(out.Peers, api.RaftPeer{ID: p.ID, Address: p.Address, Voter: p.Voter, Leader: p.Leader, APIAddr: s.cfg.peerAPI(p.ID)})
	}
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

func (s *Server) handleRemovePeer(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.RaftPeerRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := s.mustManage(id); err != nil {
		return nil, err
	}
	if !s.node.IsLeader() {
		return nil, model.Err(model.PBSENotLeader)
	}
	peers, err := s.node.Peers()
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

func (s *Server) handleSnapshotRestore(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.Snapshot
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := s.mustManage(id); err != nil {
		return nil, err
	}
	if !s.node.IsLeader() {
		return nil, model.Err(model.PBSENotLeader)
	}
	if err := s.node.RestoreSnapshot(bytes.NewReader(req.Data), time.Minute); err != nil {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: " + err.Error()}
	}
	s.logger.Printf("raft: %s@%s restored a snapshot (%d bytes)", id.User, id.Host, len(req.Data))
	return nil, nil
}
