package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/raftstore/manager"
	"github.com/strata-hpc/strata/server/api"
)

// hookOfflinePrefix starts the comment of a vnode a hook's fail_action
// offlined (PBS's text); clear_vnodes_upon_recovery clears only those.
const hookOfflinePrefix = "offlined by hook '"

func (s *Server) agentHookRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("GET "+v+"/agent/hooks", s.wrap(s.handleAgentHooks, true))
	mux.Handle("POST "+v+"/agent/hookaction", s.wrap(s.handleHookAction, true))
}

// parseHookVersion reads the work poll's hooks parameter.
func parseHookVersion(v string) (uint64, bool) {
	n, err := strconv.ParseUint(v, 10, 64)
	return n, err == nil
}

// handleAgentHooks returns the hooks with an agent event and the
// hook_version of the same snapshot. Disabled hooks are included so an
// agent's copy mirrors the configuration; the agent skips them.
func (s *Server) handleAgentHooks(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	cfg := s.state().Config()
	out := api.HooksResponse{Version: cfg.HookVersion, Hooks: []model.Hook{}}
	for _, name := range model.SortedKeys(cfg.Hooks) {
		h := cfg.Hooks[name]
		if model.HookRunsOnAgents(&h) {
			out.Hooks = append(out.Hooks, h)
		}
	}
	return out, nil
}

// handleHookAction carries out a fail_action an agent reports. Vnode
// changes go through the same Manage command qmgr uses, so they replicate
// and show in pbsnodes like an operator's offline.
func (s *Server) handleHookAction(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.HookActionRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if err := agentOf(id, req.Host); err != nil {
		return nil, err
	}
	switch req.Action {
	case api.HookRestartCycle:
		s.logger.Printf("hook %s (%s) on %s failed: restarting the scheduling cycle", req.Hook, req.Event, req.Host)
		s.kick()
		return nil, nil
	case api.HookOffline, api.HookClear:
	default:
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: unknown hook action " + req.Action}
	}
	vnodes := s.state().VnodesOnHost(req.Host)
	if len(vnodes) == 0 {
		return nil, model.Errorf(model.PBSEUnknownNode, "%s", req.Host)
	}
	for _, v := range vnodes {
		mreq := model.ManagerRequest{Verb: manager.Set, Object: manager.Node, Name: v.Name}
		if req.Action == api.HookOffline {
			mreq.Attrs = []model.ManagerAttr{
				{Name: "state", Op: "+=", Value: "offline"},
				{Name: "comment", Op: "=", Value: hookOfflinePrefix + req.Hook + "' due to hook error"},
			}
		} else {
			// Only what a hook offlined comes back; an operator's offline
			// stays.
			if v.State&model.NodeOffline == 0 || !strings.HasPrefix(v.Comment, hookOfflinePrefix) {
				continue
			}
			mreq.Attrs = []model.ManagerAttr{{Name: "state", Op: "-=", Value: "offline"}, {Name: "comment"}}
		}
		s.logger.Printf("hook %s (%s) on %s: %s vnode %s", req.Hook, req.Event, req.Host, req.Action, v.Name)
		if _, err := s.apply(&raftstore.Manage{Request: mreq, Now: s.now().Unix()}); err != nil {
			return nil, err
		}
	}
	return nil, nil
}
