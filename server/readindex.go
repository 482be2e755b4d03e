package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Reads on a follower: a command may read from any server, and a write it
// made through another server (or another process's write it was told
// about) must be visible. Before answering a user's read, a follower asks
// the leader for its applied index and waits until its own FSM has applied
// as much (the "read index" of the Raft paper, without the leader's
// heartbeat round: the leader answers writes only once applied, so its
// applied index covers every acknowledged write). A follower that has not
// heard from any leader recently (just restarted, or cut off) refuses the
// read with "not leader" rather than answer from state that may be old;
// the command then tries the next server.

// staleAfter is how long without a leader a follower still answers reads
// from its own state (an election normally takes well under it).
const staleAfter = 3 * time.Second

func (s *Server) raftIndexRoute(mux *http.ServeMux) {
	mux.Handle("GET "+api.Version+"/raft/index", s.wrap(func(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
		if !s.node.IsLeader() {
			return nil, model.Err(model.PBSENotLeader)
		}
		return api.RaftIndex{Index: s.node.AppliedIndex()}, nil
	}, false))
}

// readBarrier makes this follower current before it answers a read.
func (s *Server) readBarrier(r *http.Request, id *Identity) error {
	switch {
	case s.node.IsLeader():
		return nil
	case r.URL.Path == api.Version+"/raft/index", r.URL.Path == api.Version+"/server",
		strings.HasPrefix(r.URL.Path, api.Version+"/operator/raft/"):
		// The server's own description (qstat -B, cluster status) says
		// which server leads, or that none does; list-peers reads the
		// Raft configuration, not the state: always answered.
		return nil
	case s.lone():
		// A lone server that does not lead yet has just started: its state
		// is its last snapshot, without the log entries after it, so a job
		// submitted since would read as unknown. Wait for its election
		// and barrier instead (waitLeaderReady).
		return s.waitLoneLeader(r.Context())
	}
	addr := s.leaderAPI()
	if addr == "" {
		if last := s.node.Raft.LastContact(); last.IsZero() || time.Since(last) > staleAfter {
			return &model.PBSError{Code: model.PBSENotLeader, Msg: "Server has no leader (its state may be old); retry"}
		}
		return nil // an election in progress: answer from recent state
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	who, _ := json.Marshal(id)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+api.Version+"/raft/index", nil)
	if err != nil {
		return err
	}
	req.Header.Set(OnBehalfHeader, string(who))
	resp, err := s.forwarder.Do(req)
	if err != nil {
		return nil // the leader is going away: answer from recent state
	}
	defer resp.Body.Close()
	var out api.RaftIndex
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return nil
	}
	// A server that cannot catch up within this (cut off, or removed from
	// the cluster) sends the command on to another.
	wctx, wcancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer wcancel()
	if err := s.node.WaitApplied(wctx, out.Index); err != nil {
		return &model.PBSError{Code: model.PBSENotLeader, Msg: "Server is behind the leader; retry"}
	}
	return nil
}

// waitLoneLeader waits until a one-server cluster's server leads and has
// applied its whole log (it elects itself within an election timeout).
func (s *Server) waitLoneLeader(ctx context.Context) error {
	deadline := time.Now().Add(leaderReadyWait)
	for !s.node.IsLeader() {
		if time.Now().After(deadline) {
			return &model.PBSError{Code: model.PBSENotLeader, Msg: "Server has no leader (its state may be old); retry"}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return s.waitLeaderReady(ctx)
}

// lone reports whether this server is the only voter of its Raft
// configuration (a one-server cluster), as Raft knows it: a server that
// joined at run time may have no [[peer]] tables of its own.
func (s *Server) lone() bool {
	peers, err := s.node.Peers()
	return err == nil && len(peers) < 2
}
