package server

import (
	"context"
	"sync"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// watchLeadership starts the leader loops when this server becomes leader
// and stops them when it loses leadership. Every loop works from replicated
// state alone, so a new leader picks up exactly where the old one stopped.
func (s *Server) watchLeadership(ctx context.Context) {
	var wg sync.WaitGroup
	stop := func() {}
	defer func() { stop() }()
	ch := s.node.Raft.LeaderCh()
	for {
		select {
		case <-ctx.Done():
			return
		case leader := <-ch:
			t0 := time.Now()
			stop()
			stopped := time.Since(t0)
			s.setLeading(false)
			if !leader {
				s.logger.Printf("lost leadership")
				continue
			}
			// The FSM may lag the log just after an election; a barrier
			// makes it current before we act on it. A failed barrier is
			// retried while we still lead: giving up would leave a leader
			// that schedules nothing.
			if !s.leaderBarrier(ctx) {
				continue
			}
			// Requests wait for this moment (waitLeaderReady): say what
			// took long when it did.
			if d := time.Since(t0); d > time.Second {
				s.logger.Printf("became leader: slow start %s (stopping the previous term's loops %s, barrier %s)", d.Round(time.Millisecond), stopped.Round(time.Millisecond), (d - stopped).Round(time.Millisecond))
			} else {
				s.logger.Printf("became leader")
			}
			s.setLeading(true)
			lctx, cancel := context.WithCancel(ctx)
			stop = func() { cancel(); wg.Wait(); stop = func() {} }
			s.resetHeartbeats()
			s.syncConfig()
			for _, loop := range []func(context.Context){s.schedulerLoop, s.janitorLoop, s.historyLoop, s.execTimeLoop, s.periodicLoop, s.provisionLoop, s.resvLoop, s.serversLoop, s.fairshareLoop} {
				wg.Add(1)
				go func(f func(context.Context)) { defer wg.Done(); f(lctx) }(loop)
			}
		}
	}
}

// leaderBarrier waits until every entry committed before this leadership
// is applied here; false when leadership (or the server) ended first.
func (s *Server) leaderBarrier(ctx context.Context) bool {
	for s.node.IsLeader() {
		err := s.node.Raft.Barrier(10 * time.Second).Error()
		if err == nil {
			return s.node.IsLeader()
		}
		s.logger.Printf("leader barrier: %v", err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return false
}

// syncConfig seeds the replicated configuration from the TOML file when
// the cluster has never been configured. Afterwards qmgr owns it: a later
// edit of the file's server attributes has no effect (docs/configuration.md).
func (s *Server) syncConfig() {
	if s.state().Configured() {
		return
	}
	if _, err := s.apply(&raftstore.SetServerConfig{Config: s.cfg.ServerConfig(), Now: s.now().Unix()}); err != nil {
		s.logger.Printf("commit server configuration: %v", err)
	}
}

// resetHeartbeats gives every known host a full grace period: a new leader
// has no heartbeat history and must not mark healthy hosts down.
func (s *Server) resetHeartbeats() {
	now := s.now()
	s.hbMu.Lock()
	defer s.hbMu.Unlock()
	s.heartbeats = map[string]time.Time{}
	for _, v := range s.state().Vnodes() {
		s.heartbeats[v.Host] = now
	}
}

// janitorLoop marks silent hosts down and requeues the jobs of hosts that
// stay down longer than node_fail_requeue.
func (s *Server) janitorLoop(ctx context.Context) {
	every(ctx, s.cfg.HeartbeatInterval.Duration/2, false, func() {
		s.markSilentHostsDown()
		s.requeueJobsOnDeadHosts()
	})
}

// every runs fn every d until ctx ends (first at once when now is set). The
// leader's timers are all of this shape: they act on replicated state only,
// so whichever server leads next simply runs them again.
func every(ctx context.Context, d time.Duration, now bool, fn func()) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	if now {
		fn()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		fn()
	}
}

func (s *Server) markSilentHostsDown() {
	now := s.now()
	down := map[string]bool{}
	s.hbMu.Lock()
	for _, v := range s.state().Vnodes() {
		if v.State&model.NodeDown != 0 || down[v.Host] {
			continue
		}
		last, ok := s.heartbeats[v.Host]
		if !ok {
			s.heartbeats[v.Host] = now
			last = now
		}
		if now.Sub(last) > s.cfg.NodeDownAfter.Duration {
			down[v.Host] = true
		}
	}
	s.hbMu.Unlock()
	for host := range down {
		s.logger.Printf("host %s missed heartbeats: marking down", host)
		if _, err := s.apply(&raftstore.HostDown{Host: host, Comment: "node down: communication closed", Now: now.Unix()}); err != nil {
			s.logger.Printf("mark %s down: %v", host, err)
		}
	}
}

func (s *Server) requeueJobsOnDeadHosts() {
	snap := s.state()
	limit := snap.Config().NodeFailRequeue
	if limit <= 0 {
		return
	}
	now := s.now().Unix()
	// The hosts down long enough first: usually none, and then the running
	// jobs (tens of thousands at cluster size) are not walked at all.
	dead := map[string]bool{}
	for _, v := range snap.Vnodes() {
		if v.State&model.NodeDown != 0 && now-v.LastStateChange >= limit {
			dead[v.Host] = true
		}
	}
	if len(dead) == 0 {
		return
	}
	var ids []string
	for _, j := range snap.JobsInState(model.StateRunning) {
		if j.Substate == model.SubProvisioning {
			continue // a rebooting host is down; the provision alarm covers it
		}
		if dead[j.MSHost()] {
			ids = append(ids, j.ID)
		}
	}
	if len(ids) == 0 {
		return
	}
	s.logger.Printf("requeueing %d jobs whose mother superior is down", len(ids))
	if _, err := s.apply(&raftstore.RequeueJobs{JobIDs: ids, Comment: "mother superior down longer than node_fail_requeue", Now: now}); err != nil {
		s.logger.Printf("requeue jobs: %v", err)
	}
}

// historyLoop purges finished jobs older than job_history_duration.
func (s *Server) historyLoop(ctx context.Context) {
	every(ctx, time.Minute, false, func() {
		cfg := s.state().Config()
		now := s.now().Unix()
		if _, err := s.apply(&raftstore.PurgeHistory{Before: now - cfg.JobHistoryDuration, Now: now}); err != nil {
			s.logger.Printf("purge history: %v", err)
		}
	})
}
