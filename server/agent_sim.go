package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// maxSimHosts bounds the hosts of one multiplexed request, so a request's
// cost stays bounded whatever its body holds (16 MiB would fit ~500,000).
const maxSimHosts = 100_000

// simApplyParallel is how many hosts' event batches one multiplexed
// request commits at once: concurrent applies share Raft's group commit.
const simApplyParallel = 256

// simCoalesce is how long a woken multiplexed poll waits for more changes
// before it answers, so that a burst of commits is one answer (one walk
// of the hosts' work indexes). 100 ms above 1,000 hosts was tried and was
// slower at 10,000 hosts (docs/performance.md).
const simCoalesce = 20 * time.Millisecond

// simRoutes are the multiplexed agent routes of a simulator (api/sim.go).
// Each checks every host against the simulator's certificate with the same
// agentOf as a single agent's route, then does per host what that route
// does.
func (s *Server) simRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/agent/sim/heartbeat", s.wrap(s.handleSimHeartbeat, true))
	mux.Handle("POST "+v+"/agent/sim/work", s.wrap(s.handleSimWork, true))
	mux.Handle("POST "+v+"/agent/sim/events", s.wrap(s.handleSimEvents, true))
}

// simulatorOnly refuses the multiplexed routes to a real agent: its
// certificate names one host, and it has no reason to batch.
func simulatorOnly(id *Identity, hosts int) error {
	if !id.Simulator {
		return model.Errorf(model.PBSEPerm, "(agent %s: the multiplexed routes need a simulator certificate)", id.Host)
	}
	if hosts > maxSimHosts {
		return &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: more than 100000 hosts in one request"}
	}
	return nil
}

func (s *Server) handleSimHeartbeat(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.SimHeartbeatRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := simulatorOnly(id, len(req.Hosts)); err != nil {
		return nil, err
	}
	// All or nothing: one foreign host refuses the request before any
	// heartbeat is noted.
	for i := range req.Hosts {
		if err := agentOf(id, req.Hosts[i].Host); err != nil {
			return nil, err
		}
	}
	snap := s.state()
	var out api.SimHeartbeatResponse
	for i := range req.Hosts {
		if err := s.heartbeat(snap, &req.Hosts[i]); err != nil {
			out.Register = append(out.Register, req.Hosts[i].Host)
		}
	}
	return out, nil
}

// handleSimWork is handleWork for many hosts in one long poll. It wakes on
// the one index that moves with every host's work index and answers with
// the hosts whose own index moved; agent hooks are not compared (a
// simulated host runs none).
func (s *Server) handleSimWork(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.SimWorkRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := simulatorOnly(id, len(req.Hosts)); err != nil {
		return nil, err
	}
	for host := range req.Hosts {
		if err := agentOf(id, host); err != nil {
			return nil, err
		}
	}
	wait, err := time.ParseDuration(req.Wait)
	if err != nil || wait <= 0 || wait > 5*time.Minute {
		wait = 30 * time.Second
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		snap := s.state()
		_, watch := snap.TableIndex(raftstore.AnyHostWorkKey)
		out := api.SimWorkResponse{Hosts: map[string]*api.WorkResponse{}}
		// One walk of the work indexes, not a lookup per host: every
		// registered host has one (registration moves it).
		snap.HostWorkIndexes(func(host string, cur uint64) {
			if index, ok := req.Hosts[host]; ok && cur != index {
				wr := s.work(snap, host, cur)
				out.Hosts[host] = &wr
			}
		})
		if len(out.Hosts) > 0 {
			return out, nil
		}
		select {
		case <-watch:
			// Let the commits of the next moments join this answer:
			// thousands of hosts change in bursts, and each answer walks
			// them all.
			select {
			case <-time.After(simCoalesce):
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
		case <-s.leadershipLost():
			return nil, model.Err(model.PBSENotLeader)
		case <-timer.C:
			return out, nil
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
}

// handleSimEvents commits many hosts' event batches, each checked and
// committed as handleEvents does (one JobEvents entry per host), several
// at a time so that they share commits.
func (s *Server) handleSimEvents(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.SimEventsRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := simulatorOnly(id, len(req.Batches)); err != nil {
		return nil, err
	}
	for i := range req.Batches {
		if err := agentOf(id, req.Batches[i].Host); err != nil {
			return nil, err
		}
	}
	snap := s.state()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		sem = make(chan struct{}, simApplyParallel)
		out = api.SimEventsResponse{Failed: map[string]string{}}
	)
	for i := range req.Batches {
		b := &req.Batches[i]
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := s.events(snap, b); err != nil {
				mu.Lock()
				out.Failed[b.Host] = err.Error()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out, nil
}
