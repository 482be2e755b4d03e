package server

import (
	"fmt"
	"net/http"
	"sort"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/schedglue"
)

func (s *Server) provisionRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/agent/provision", s.wrap(s.handleProvisionReport, true))
	mux.Handle("GET "+v+"/provision", s.wrap(s.handleProvisionStatus, false))
}

// provisionWork is the provisioning item of a host's work poll: its
// running operation when the hook runs on the agent.
func (s *Server) provisionWork(snap *raftstore.StateSnapshot, host string) *api.ProvisionWork {
	op := snap.ProvOp(host)
	if op == nil || op.State != model.ProvRunning || op.Mode != model.ProvModeAgent {
		return nil
	}
	cfg := snap.Config()
	h := schedglue.ProvisionHook(&cfg)
	if h == nil {
		return nil
	}
	hook := *h
	hook.Alarm = int(op.Alarm)
	return &api.ProvisionWork{Host: op.Host, Vnodes: op.Vnodes, AOE: op.AOE, JobID: op.JobID, Attempt: op.Attempt, Started: op.Started, Hook: hook}
}

// handleProvisionReport commits an agent's hook result.
func (s *Server) handleProvisionReport(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.ProvisionReport
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	// Operations are keyed by host: the agent reports only its own.
	if err := agentOf(id, req.Host); err != nil {
		return nil, err
	}
	s.heard(req.Host)
	if op := s.state().ProvOp(req.Host); op != nil && op.Attempt == req.Attempt {
		s.logProvisionFailure(op, req.Kind, req.Exit, req.Message)
	}
	_, err := s.apply(&raftstore.ProvisionResult{Host: req.Host, Attempt: req.Attempt, Kind: req.Kind, Exit: req.Exit, Message: req.Message, Now: s.now().Unix()})
	return nil, err
}

func (s *Server) handleProvisionStatus(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return provisionStatus(s.state(), s.now().Unix()), nil
}

// provisionStatus is the insight Loom/Coopr's server keeps about its task
// queue, for provisioning: queue length, wait and duration per AOE,
// failures, and a suggested max_concurrent_provision.
func provisionStatus(snap *raftstore.StateSnapshot, now int64) *api.ProvisionStatus {
	cfg := snap.Config()
	h := schedglue.ProvisionHook(&cfg)
	st := &api.ProvisionStatus{Enabled: h != nil, MaxConcurrent: cfg.ProvisionConcurrency(), Ops: snap.ProvOps(), Stats: snap.ProvStats()}
	if h != nil {
		st.Hook, st.Mode = h.Name, schedglue.ProvisionMode(h)
	}
	var oldestWait int64
	for _, op := range st.Ops {
		if op.State == model.ProvWaiting {
			st.Waiting++
			oldestWait = max(oldestWait, now-op.Queued)
		} else {
			st.Running++
		}
	}
	info := schedglue.ProvisionInfo(snap, &cfg)
	per := map[string]*api.ProvisionAOE{}
	waits := map[string]int64{}
	for _, s := range st.Stats {
		a := per[s.AOE]
		if a == nil {
			a = &api.ProvisionAOE{AOE: s.AOE}
			per[s.AOE] = a
		}
		a.Successes += s.Successes
		a.Failures += s.Failures
		waits[s.AOE] += s.WaitSecs
	}
	for _, op := range st.Ops {
		if per[op.AOE] == nil {
			per[op.AOE] = &api.ProvisionAOE{AOE: op.AOE}
		}
	}
	for _, aoe := range model.SortedKeys(per) {
		a := per[aoe]
		a.EstimateSecs = info.Estimate(aoe)
		_, a.Learned = info.Estimates[aoe]
		if n := a.Successes + a.Failures; n > 0 {
			a.MeanWaitSecs = waits[aoe] / n
		}
		st.PerAOE = append(st.PerAOE, *a)
	}
	sort.Slice(st.Stats, func(i, j int) bool { return st.Stats[i].Key < st.Stats[j].Key })
	st.Suggested, st.SuggestedWhy = suggestConcurrency(st, oldestWait)
	return st
}

// suggestConcurrency follows the Loom/Coopr rule of thumb: a queue that is
// long and waits longer than an operation takes wants more slots (enough
// to drain it in one estimate); an idle queue with free slots wants fewer.
func suggestConcurrency(st *api.ProvisionStatus, oldestWait int64) (int64, string) {
	cur := st.MaxConcurrent
	var est int64 = model.ProvisionDuration
	for _, a := range st.PerAOE {
		est = min(est, a.EstimateSecs)
	}
	switch {
	case st.Waiting > 0 && oldestWait > est:
		return cur + int64(st.Waiting), fmt.Sprintf("%d operations waiting, the oldest for %ds, longer than an operation takes (%ds)", st.Waiting, oldestWait, est)
	case st.Waiting == 0 && st.Running == 0:
		return cur, "queue empty"
	case st.Waiting == 0 && int64(st.Running) < cur:
		return cur, fmt.Sprintf("%d of %d slots in use", st.Running, cur)
	}
	return cur, "queue drains within an operation's time"
}
