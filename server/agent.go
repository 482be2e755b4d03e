package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// handleRegister records an agent's host and vnodes through Raft. Every
// resource the agent advertises must be defined on the server, so a typo in
// an agent's configuration is reported to that agent by name.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.RegisterRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if req.Host == "" || len(req.Vnodes) == 0 {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: registration needs a host and at least one vnode"}
	}
	if err := agentOf(id, req.Host); err != nil {
		return nil, err
	}
	snap := s.state()
	if !snap.Configured() {
		return nil, &model.PBSError{Code: model.PBSENotLeader, Msg: "Server is not ready yet"}
	}
	// A vnode belongs to the host that registered it first: an agent
	// cannot take over another host's vnode by naming it.
	for _, spec := range req.Vnodes {
		name := spec.Name
		if name == "" {
			name = req.Host
		}
		if v := snap.Vnode(name); v != nil && v.Host != req.Host {
			return nil, model.Errorf(model.PBSEPerm, "(vnode %s belongs to host %s)", name, v.Host)
		}
	}
	cfg := snap.Config()
	var vnodes []*model.Vnode
	for _, spec := range req.Vnodes {
		v, err := vnodeFromSpec(req.Host, spec, cfg.Defs)
		if err != nil {
			return nil, err
		}
		vnodes = append(vnodes, v)
	}
	_, err := s.apply(&raftstore.RegisterHost{
		Host: req.Host, BootID: req.BootID, Version: req.Version, Pcpus: req.Pcpus,
		Vnodes: vnodes, Jobs: req.Jobs, Now: s.now().Unix(), ImageAOE: req.ImageAOE,
	})
	if err != nil {
		return nil, err
	}
	s.heard(req.Host)
	return api.RegisterResponse{ServerName: cfg.Name, HeartbeatInterval: int(s.cfg.HeartbeatInterval.Milliseconds()), HookVersion: cfg.HookVersion}, nil
}

func vnodeFromSpec(host string, spec api.VnodeSpec, defs model.ResourceDefs) (*model.Vnode, error) {
	if spec.Name == "" {
		spec.Name = host
	}
	v := &model.Vnode{
		Name: spec.Name, Host: host, Mom: host, Priority: spec.Priority, Sharing: spec.Sharing,
		ProvisionEnable: spec.ProvEnable, CurrentAOE: spec.CurrentAOE,
		Available: map[string]string{"host": host, "vnode": spec.Name},
	}
	for name, val := range spec.Resources {
		d, ok := defs[name]
		if !ok {
			return nil, &model.PBSError{Code: model.PBSEUnknownResource, Msg: "Unknown resource: " + name + " (vnode " + spec.Name + "; define it on the server first)"}
		}
		norm, err := d.Normalize(val)
		if err != nil {
			return nil, model.Errorf(model.PBSEBadAttrVal, " resources_available.%s on vnode %s: %v", name, spec.Name, err)
		}
		if name != "host" && name != "vnode" {
			v.Available[name] = norm
		}
	}
	return v, nil
}

// handleHeartbeat notes that a host is alive. A host the server does not
// know, or has marked down, is told to register again.
func (s *Server) handleHeartbeat(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.HeartbeatRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := agentOf(id, req.Host); err != nil {
		return nil, err
	}
	return nil, s.heartbeat(s.state(), &req)
}

// heartbeat notes one host's heartbeat (the caller checked it may speak
// for the host), or says it must register again.
func (s *Server) heartbeat(snap *raftstore.StateSnapshot, req *api.HeartbeatRequest) error {
	vnodes := snap.VnodesOnHost(req.Host)
	if len(vnodes) == 0 {
		return model.Errorf(model.PBSEUnknownNode, "%s", req.Host)
	}
	for _, v := range vnodes {
		if v.State&model.NodeDown != 0 || v.BootID != req.BootID {
			return model.Errorf(model.PBSEUnknownNode, "%s (register again)", req.Host)
		}
	}
	s.heard(req.Host)
	return nil
}

func (s *Server) heard(host string) {
	s.hbMu.Lock()
	s.heartbeats[host] = s.now()
	s.hbMu.Unlock()
}

// handleWork is the agents' long poll: it returns the jobs the host runs as
// mother superior. It answers at once when the host's work index differs
// from the agent's (something changed since its last answer, or the agent
// is new), otherwise when that host's jobs change or the wait ends. Only the
// host's own index is watched, so a change elsewhere wakes no other agent.
func (s *Server) handleWork(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	q := r.URL.Query()
	host := q.Get("host")
	if err := agentOf(id, host); err != nil {
		return nil, err
	}
	index, _ := strconv.ParseUint(q.Get("index"), 10, 64)
	// hooks is the hook_version the agent holds (absent: do not compare).
	agentHooks, compareHooks := parseHookVersion(q.Get("hooks"))
	wait, err := time.ParseDuration(q.Get("wait"))
	if err != nil || wait <= 0 || wait > 5*time.Minute {
		wait = 30 * time.Second
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		snap := s.state()
		cur, watch := snap.TableIndex(raftstore.HostWorkKey(host))
		if cur != index || (compareHooks && snap.Config().HookVersion != agentHooks) {
			return s.work(snap, host, cur), nil
		}
		_, hooksWatch := snap.TableIndex(raftstore.AgentHooksKey)
		select {
		case <-watch:
		case <-hooksWatch:
		case <-s.leadershipLost():
			// A deposed leader sends its agents on to the new one
			// instead of holding their polls (forward.go).
			return nil, model.Err(model.PBSENotLeader)
		case <-timer.C:
			return s.work(snap, host, cur), nil
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
}

func (s *Server) work(snap *raftstore.StateSnapshot, host string, index uint64) api.WorkResponse {
	jobs, _ := snap.JobsOnHost(host)
	var running []*api.WorkItem
	for _, j := range jobs {
		// A job being provisioned (substate 71) is not the agent's yet.
		if j.IsRunning() && j.Substate != model.SubProvisioning {
			running = append(running, api.NewWorkItem(j))
		}
	}
	return api.WorkResponse{Index: index, Jobs: running, HookVersion: snap.Config().HookVersion, Provision: s.provisionWork(snap, host)}
}

// handleEvents commits a batch of job reports from one agent as one entry.
// An agent reports only for jobs its host runs as mother superior; a report
// about another host's current run refuses the whole batch. A report from
// an earlier run (the job was requeued and runs elsewhere now) passes, and
// the FSM drops it as stale, so an agent that was down cannot wedge its
// event queue on it.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.EventsRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := agentOf(id, req.Host); err != nil {
		return nil, err
	}
	return nil, s.events(s.state(), &req)
}

// events checks and commits one host's batch of job reports (the caller
// checked it may speak for the host).
func (s *Server) events(snap *raftstore.StateSnapshot, req *api.EventsRequest) error {
	for _, e := range req.Events {
		j := snap.Job(e.JobID)
		// req.Host passed agentOf: it is the agent's own host (or one of
		// a simulator's).
		if j != nil && j.IsRunning() && j.MSHost() != req.Host && (e.Run == 0 || e.Run == j.RunCount) {
			return model.Errorf(model.PBSEPerm, "(job %s does not run on %s)", e.JobID, req.Host)
		}
	}
	cmd := &raftstore.JobEvents{Host: req.Host, Events: req.Events, Now: s.now().Unix()}
	s.heard(req.Host)
	if _, err := s.apply(cmd); err != nil {
		return err
	}
	s.mailJobEvents(snap, req.Events) // mail_events.go
	return nil
}
