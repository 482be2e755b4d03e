package mom

import (
	"container/heap"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// simWorkWait is how long the multiplexed work poll may wait on the server.
const simWorkWait = 30 * time.Second

// simEventHosts bounds the hosts of one multiplexed events request, and
// simEventSenders is how many such requests may be in flight at once.
const (
	simEventHosts   = 1000
	simEventSenders = 4
)

// workLoop is the one long poll of all simulated hosts. Each answer holds
// the work lists of the hosts whose work index moved; each is reconciled as
// an agent reconciles its own list.
func (s *Simulator) workLoop(ctx context.Context) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	for {
		s.mu.Lock()
		hosts := make(map[string]uint64, len(s.hosts))
		for _, h := range s.hosts {
			if h.registered {
				hosts[h.name] = h.index
			}
		}
		s.mu.Unlock()
		if len(hosts) == 0 {
			if !b.wait(ctx) {
				return
			}
			continue
		}
		resp, err := s.client.SimWork(ctx, hosts, simWorkWait)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			s.logger.Printf("work poll (%d hosts): %v (retrying)", len(hosts), err)
			if !b.wait(ctx) {
				return
			}
			continue
		}
		b.reset()
		now := time.Now()
		s.mu.Lock()
		for name, w := range resp.Hosts {
			h := s.hosts[name]
			if h == nil || !h.registered || w == nil {
				continue // registering again meanwhile: its next answer counts
			}
			h.index = w.Index
			s.reconcileLocked(h, w.Jobs, now)
			s.provisionLocked(ctx, h, w.Provision)
		}
		s.mu.Unlock()
		s.kick()
		s.wakeTimer()
	}
}

// reconcileLocked is Agent.reconcile for a simulated host: start a run
// listed at substate 41 that has no record, report lost a run listed as
// under way that it does not know, end a run the server wants killed, and
// forget runs the server no longer lists.
func (s *Simulator) reconcileLocked(h *simHost, jobs []*api.WorkItem, now time.Time) {
	inWork := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		key := recordKey(j.ID, j.RunCount)
		inWork[key] = true
		r := h.runs[key]
		switch {
		case r == nil && j.Substate == model.SubPrerun:
			s.startLocked(h, j.Job, key, now)
		case r == nil:
			if !h.lost[key] {
				h.lost[key] = true
				h.pending = append(h.pending, api.JobEvent{JobID: j.ID, Kind: api.EventFailed, Exit: model.ExitInitAbort, Run: j.RunCount,
					Comment: "job lost: the execution host has no record of it"})
			}
		case j.KillRequested() && !r.ended:
			// A killed job ends as a job killed by SIGTERM does (PBS
			// reports 256+signal).
			r.exit = 256 + 15
			s.endLocked(r, now)
		}
	}
	for key, r := range h.runs {
		if inWork[key] {
			continue
		}
		if !r.ended {
			heap.Remove(&s.ends, r.heapIdx) // deleted with force or requeued
		}
		if !r.ended || r.acked {
			delete(h.runs, key)
		}
	}
	for key := range h.lost {
		if !inWork[key] {
			delete(h.lost, key)
		}
	}
	h.inWork = inWork
}

// startLocked "starts" a run: it reports started and sets its end time.
func (s *Simulator) startLocked(h *simHost, j *model.Job, key string, now time.Time) {
	r := &simRun{host: h, key: key, jobID: j.ID, run: j.RunCount, started: now, ncpus: j.ResourceList["ncpus"]}
	r.end = now.Add(time.Duration(float64(simRuntime(j, s.opts.Runtime)) / s.opts.Speed))
	if e, err := strconv.Atoi(strings.TrimSpace(j.EnvValue(SimExitVar))); err == nil {
		r.exit = e
	}
	h.runs[key] = r
	heap.Push(&s.ends, r)
	// A session id, as a real agent reports its shepherd's.
	s.sessions++
	h.pending = append(h.pending, api.JobEvent{JobID: j.ID, Kind: api.EventStarted, Run: j.RunCount, SessionID: 100000 + s.sessions})
}

// simRuntime is a job's virtual runtime: STRATA_SIM_RUNTIME (a Go duration
// or PBS [[HH:]MM:]SS), else Resource_List.walltime, else def.
func simRuntime(j *model.Job, def time.Duration) time.Duration {
	if v := strings.TrimSpace(j.EnvValue(SimRuntimeVar)); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return d
		}
		if sec, err := model.ParseDuration(v); err == nil && sec >= 0 {
			return time.Duration(sec) * time.Second
		}
	}
	if w := j.ResourceList["walltime"]; w != "" {
		if sec, err := model.ParseDuration(w); err == nil && sec >= 0 {
			return time.Duration(sec) * time.Second
		}
	}
	return def
}

// endLocked reports a run's end with the resources it "used".
func (s *Simulator) endLocked(r *simRun, now time.Time) {
	if r.ended {
		return
	}
	if r.heapIdx >= 0 {
		heap.Remove(&s.ends, r.heapIdx)
	}
	r.ended = true
	wall := int64(float64(now.Sub(r.started)) * s.opts.Speed / float64(time.Second))
	used := map[string]string{"walltime": model.FormatDuration(wall), "cput": model.FormatDuration(0), "mem": "0kb", "vmem": "0kb"}
	if r.ncpus != "" {
		used["ncpus"] = r.ncpus
	}
	r.host.pending = append(r.host.pending, api.JobEvent{JobID: r.jobID, Kind: api.EventEnded, Run: r.run, Exit: r.exit, Used: used})
}

// timerLoop ends runs when their time comes.
func (s *Simulator) timerLoop(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		now := time.Now()
		for s.ends.Len() > 0 && !s.ends[0].end.After(now) {
			s.endLocked(s.ends[0], now)
		}
		next := time.Hour
		if s.ends.Len() > 0 {
			next = s.ends[0].end.Sub(now)
		}
		s.mu.Unlock()
		s.kick()
		t.Reset(next)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wakeTimers:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		}
	}
}

func (s *Simulator) wakeTimer() {
	select {
	case s.wakeTimers <- struct{}{}:
	default:
	}
}

func (s *Simulator) kick() {
	select {
	case s.kickEvents <- struct{}{}:
	default:
	}
}

// eventLoop sends the hosts' pending events in multiplexed batches until
// the server commits them; a host whose batch failed keeps its events
// and they go again (events are idempotent on the server).
func (s *Simulator) eventLoop(ctx context.Context) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kickEvents:
		}
		for {
			req := s.takeEvents()
			if len(req.Batches) == 0 {
				break
			}
			if len(req.Batches) == simEventHosts {
				s.kick() // more are waiting: another sender takes them
			}
			sent := time.Now()
			resp, err := s.client.SimEvents(ctx, req)
			if d := time.Since(sent); d > time.Second {
				s.logger.Printf("events of %d hosts took %v", len(req.Batches), d.Round(time.Millisecond))
			}
			if ctx.Err() != nil {
				return
			}
			failed := map[string]string{}
			if err != nil {
				s.logger.Printf("report events of %d hosts: %v (retrying)", len(req.Batches), err)
				for _, bt := range req.Batches {
					failed[bt.Host] = err.Error()
				}
			} else {
				failed = resp.Failed
			}
			s.acknowledge(req, failed)
			if len(failed) > 0 {
				if err == nil {
					s.logger.Printf("events of %d hosts refused (retrying), e.g. %v", len(failed), firstOf(failed))
				}
				if !b.wait(ctx) {
					return
				}
				continue
			}
			b.reset()
		}
	}
}

// takeEvents picks up to simEventHosts hosts' pending events.
func (s *Simulator) takeEvents() *api.SimEventsRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	req := &api.SimEventsRequest{}
	for _, h := range s.hosts {
		if len(h.pending) == 0 || h.sending > 0 || !h.registered {
			continue
		}
		h.sending = len(h.pending)
		req.Batches = append(req.Batches, api.EventsRequest{Host: h.name, Events: append([]api.JobEvent(nil), h.pending...)})
		if len(req.Batches) >= simEventHosts {
			break
		}
	}
	return req
}

// acknowledge drops the events the server committed and marks ended runs
// acknowledged; runs the server no longer lists are then forgotten.
func (s *Simulator) acknowledge(req *api.SimEventsRequest, failed map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, bt := range req.Batches {
		h := s.hosts[bt.Host]
		n := h.sending
		h.sending = 0
		if _, bad := failed[bt.Host]; bad {
			continue
		}
		for _, e := range h.pending[:n] {
			if r := h.runs[recordKey(e.JobID, e.Run)]; r != nil && (e.Kind == api.EventEnded || e.Kind == api.EventFailed) {
				r.acked = true
				if !h.inWork[r.key] {
					delete(h.runs, r.key)
				}
			}
		}
		h.pending = append([]api.JobEvent(nil), h.pending[n:]...)
	}
}

func firstOf(m map[string]string) string {
	for k, v := range m {
		return k + ": " + v
	}
	return ""
}

// runHeap orders running simulated runs by end time.
type runHeap []*simRun

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return h[i].end.Before(h[j].end) }
func (h runHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *runHeap) Push(x any) {
	r := x.(*simRun)
	r.heapIdx = len(*h)
	*h = append(*h, r)
}
func (h *runHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	r.heapIdx = -1
	return r
}
