package server

import (
	"context"
	"net/http"
	"path/filepath"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/internal/metricshttp"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/metrics"
)

// newMetrics builds this process's registry over its state and Raft node
// (both read at scrape time; the node exists once Run opened it).
func (s *Server) newMetrics() *metrics.Metrics {
	return metrics.New(metrics.Deps{
		State: func() *raftstore.StateSnapshot {
			if s.fsm == nil {
				return nil
			}
			return s.state()
		},
		IsLeader: func() bool { return s.node != nil && s.node.IsLeader() },
		RaftStats: func() map[string]string {
			if s.node == nil {
				return nil
			}
			return s.node.Raft.Stats()
		},
		RaftDir: filepath.Join(s.cfg.DataDir, "raft"),
	})
}

// Metrics is the server's registry (tests scrape it without a listener).
func (s *Server) Metrics() *metrics.Metrics { return s.metrics }

// serveMetrics counts leader changes and, when metrics_addr is set, serves
// /metrics there over plain HTTP until ctx ends. The endpoint carries
// counts only (docs/metrics.md), so it needs no credentials; where it
// listens is the operator's choice (loopback by default in the local
// cluster).
func (s *Server) serveMetrics(ctx context.Context) error {
	obs := make(chan raft.Observation, 4)
	observer := raft.NewObserver(obs, false, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	s.node.Raft.RegisterObserver(observer)
	go func() {
		defer s.node.Raft.DeregisterObserver(observer)
		for {
			select {
			case <-ctx.Done():
				return
			case <-obs:
				s.metrics.LeaderChanged()
			}
		}
	}()
	go s.metrics.WatchProvisioning(ctx) // durations and waits (server/metrics/provision.go)
	if s.cfg.MetricsAddr == "" {
		return nil
	}
	// Its own listener (internal/metricshttp): nothing of the
	// authenticated API is reachable there (TestRouteLabelsBounded checks),
	// and the API's authorization matrix covers the API mux only.
	// The web page (web = true) shares it: both are plain HTTP, and
	// the page's job views need a session (server/web).
	var mounts []func(*http.ServeMux)
	if s.web != nil {
		mounts = append(mounts, s.web.handler.Mount)
	}
	addr, err := metricshttp.Serve(ctx, s.cfg.MetricsAddr, s.metrics.Handler(), s.logger, mounts...)
	if err != nil {
		return err
	}
	s.logger.Printf("server %s: metrics on http://%s/metrics", s.cfg.Name, addr)
	if s.web != nil {
		s.web.listening(addr, s.hostname)
		s.logger.Printf("server %s: web page on %s/ui/", s.cfg.Name, s.web.baseURL())
	}
	return nil
}
