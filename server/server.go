// Package server is Strata's PBS server: the API that commands and agents
// talk to, the job, node and configuration lifecycle on top of the Raft
// state, and the loops only the leader runs (scheduler, heartbeat janitor,
// requeue of jobs on dead nodes, history purge).
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/metrics"
)

// Server is one Strata server process.
type Server struct {
	cfg      *Config
	logger   *log.Logger
	hostname string
	node     *raftstore.Node
	fsm      *raftstore.FSM

	// trigger wakes the scheduler loop; capacity 1 coalesces bursts.
	trigger chan struct{}
	// heartbeats holds when each host was last heard from. It lives only
	// in the leader's memory: heartbeats never enter the Raft log.
	hbMu       sync.Mutex
	heartbeats map[string]time.Time
	now        func() time.Time
	// forwarder sends a follower's writes to the leader (forward.go).
	forwarder *http.Client
	// munge decodes the credentials of remote commands, nil unless
	// [munge] enable (remoteauth.go).
	munge *munge.Decoder
	// leadEnd is closed when the current leadership ends (peers.go).
	leadMu  sync.Mutex
	leadEnd chan struct{}
	// members are the servers' announcements to this leader (levels.go).
	members memberLevels
	// metrics is this process's Prometheus registry (metrics_addr).
	metrics *metrics.Metrics
	// web is the page on the metrics listener, nil when off (web_glue.go).
	web *webUI
	// mail bounds the mail program's concurrent runs and backlog (mail.go).
	mail mailLimits
}

// New prepares a server logging to logOut with timestamps; Run starts it.
func New(cfg *Config, logOut io.Writer) *Server {
	return NewWithLogger(cfg, log.New(logOut, "", log.LstdFlags|log.Lmicroseconds))
}

// NewWithLogger prepares a server with its logger (the journal's, under
// systemd: no timestamps, priority prefixes); Run starts it.
func NewWithLogger(cfg *Config, logger *log.Logger) *Server {
	host, _ := os.Hostname()
	return &Server{
		cfg:        cfg,
		logger:     logger,
		hostname:   host,
		trigger:    make(chan struct{}, 1),
		heartbeats: map[string]time.Time{},
		now:        time.Now,
		mail:       newMailLimits(),
	}
}

// Run opens the Raft node, serves the API and runs the leader loops until
// ctx ends.
func (s *Server) Run(ctx context.Context) error {
	fsm, err := raftstore.NewFSM(s.logger, s.onApply)
	if err != nil {
		return err
	}
	s.fsm = fsm
	evlog, err := openEventLog(s.cfg.DataDir, s.hostname, func() int { cfg := fsm.State().Snapshot().Config(); return cfg.LogEventMask() }, s.logger)
	if err != nil {
		return err
	}
	s.metrics = s.newMetrics()
	s.web = s.newWebUI()
	fsm.OnEvents(func(evs []model.LogEvent) { s.metrics.ObserveEvents(evs); evlog.submit(evs) })
	go evlog.run(ctx)
	if err := s.openMunge(); err != nil { // remote commands (remoteauth.go)
		return err
	}
	certs, err := pki.NewSource(s.cfg.TLS.Files())
	if err != nil {
		return fmt.Errorf("config [tls]: %w", err)
	}
	node, err := raftstore.Open(raftstore.Config{
		TLS:               certs,
		DataDir:           filepath.Join(s.cfg.DataDir, "raft"),
		BindAddr:          s.cfg.RaftAddr,
		Bootstrap:         !s.cfg.Join,
		LocalID:           s.cfg.NodeID,
		Peers:             s.cfg.raftPeers(),
		SnapshotThreshold: s.cfg.SnapshotThreshold,
		SnapshotInterval:  s.cfg.SnapshotInterval.Duration,
		TrailingLogs:      s.cfg.TrailingLogs,
		LogOutput:         s.logger.Writer(),
		Fast:              s.cfg.FastRaft,
		Timeout:           s.cfg.RaftTimeout.Duration,
	}, fsm)
	if err != nil {
		return err
	}
	s.node = node
	defer node.Shutdown()
	s.forwarder = newForwarder(certs)

	unixLn, err := listenUnix(s.cfg.Socket)
	if err != nil {
		return err
	}
	tcpLn, err := net.Listen("tcp", s.cfg.APIAddr)
	if err != nil {
		unixLn.Close()
		return fmt.Errorf("listen on api_addr %s: %w", s.cfg.APIAddr, err)
	}
	// The TCP API is HTTPS with the server certificate; a client
	// certificate is verified when given (identify then needs an agent's).
	// Handshakes complete before the HTTP server sees a connection, so the
	// per-caller caps key it by certificate (tlslisten.go).
	lim := s.cfg.Limits.withDefaults()
	tcpLn = newHandshakeListener(tcpLn, certs.ServerConfig(tls.VerifyClientCertIfGiven, pki.RoleAgent, pki.RoleSimulator, pki.RoleServer),
		lim.ReadHeaderTimeout.Duration, lim.MaxConnsPerHost, s.logger)
	srv := &http.Server{Handler: s.metrics.Middleware(s.routes()), ConnContext: saveConn, ErrorLog: s.logger}
	hardenHTTP(srv, s.cfg.Limits, s.logger) // timeouts and per-caller caps (limits.go)
	errc := make(chan error, 2)
	for _, ln := range []net.Listener{unixLn, tcpLn} {
		ln := ln
		go func() { errc <- srv.Serve(ln) }()
	}
	s.logger.Printf("server %s: api on %s and %s, raft on %s", s.cfg.Name, s.cfg.Socket, s.cfg.APIAddr, s.cfg.RaftAddr)

	go s.watchLeadership(ctx)
	go s.announceLoop(ctx) // levels.go
	if err := s.serveMetrics(ctx); err != nil {
		// Metrics are an aid: a taken port must not keep the cluster's
		// state from being served.
		s.logger.Printf("metrics: %v; serving without the metrics endpoint", err)
	}
	go s.accountingLoop(ctx)
	go s.memTrimLoop(ctx) // memtrim.go

	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(shutCtx)
	os.Remove(s.cfg.Socket)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// listenUnix opens the local socket with permissions that let every local
// user connect: identity comes from peer credentials, not from the file mode.
func listenUnix(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("socket directory: %w", err)
	}
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return nil, fmt.Errorf("socket %s: another server is already listening", path)
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o666); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket permissions: %w", err)
	}
	return ln, nil
}

// state returns a consistent read view of the replicated state.
func (s *Server) state() *raftstore.StateSnapshot { return s.fsm.State().Snapshot() }

// apply commits a command through Raft; only the leader can, and only once
// the replicated configuration exists (a new cluster's first leader commits
// it right after its election).
func (s *Server) apply(cmd raftstore.Command) (any, error) {
	if !s.node.IsLeader() {
		return nil, model.Err(model.PBSENotLeader)
	}
	if _, isConfig := cmd.(*raftstore.SetServerConfig); !isConfig && !s.state().Configured() {
		return nil, &model.PBSError{Code: model.PBSENotLeader, Msg: "Server is not ready yet"}
	}
	start := time.Now()
	resp, err := s.node.Apply(cmd, 10*time.Second)
	s.metrics.ObserveApply(time.Since(start))
	if errors.Is(err, raftstore.ErrNotLeader) {
		return nil, model.Err(model.PBSENotLeader)
	}
	return resp, err
}

// onApply runs after every committed batch (on every server); changes that
// can let a job start wake the scheduler.
func (s *Server) onApply(types []raftstore.MessageType) {
	for _, t := range types {
		if t != raftstore.ApplyPlanType && t != raftstore.PurgeHistoryType {
			s.kick()
			return
		}
	}
}

// kick asks for a scheduling cycle without blocking.
func (s *Server) kick() {
	select {
	case s.trigger <- struct{}{}:
	default:
	}
}
