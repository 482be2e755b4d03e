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

// manageRoutes are qmgr's: one route changes configuration, one describes it.
func (s *Server) manageRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/manage", s.wrap(s.handleManage, false))
	mux.Handle("GET "+v+"/manage", s.wrap(s.handleDescribe, false))
}

// operatorAttrs are what PBS lets operators (not only managers) change.
var operatorAttrs = map[string]map[string]bool{
	manager.Server: {"comment": true, "scheduling": true, "scheduler_iteration": true},
	manager.Queue:  {"enabled": true, "started": true},
	manager.Node:   {"state": true, "comment": true},
}

// mayManage reports whether id may make the change: managers may make any,
// operators only set/unset the attributes in operatorAttrs.
func mayManage(id *Identity, cfg *model.ServerConfig, req *model.ManagerRequest) bool {
	if isManager(id, cfg) {
		return true
	}
	if !isOperator(id, cfg) || (req.Verb != manager.Set && req.Verb != manager.Unset) {
		return false
	}
	allowed := operatorAttrs[req.Object]
	for _, a := range req.Attrs {
		if !allowed[a.Name] {
			return false
		}
	}
	return len(req.Attrs) > 0
}

func (s *Server) handleManage(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req model.ManagerRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	cfg := s.state().Config()
	if !mayManage(id, &cfg, &req) {
		return nil, model.Err(model.PBSEPerm)
	}
	req.ServerHost = s.hostname
	if i := strings.IndexByte(req.ServerHost, '.'); i > 0 {
		req.ServerHost = req.ServerHost[:i]
	}
	who := id.User
	if id.Host != "" {
		who += "@" + id.Host
	}
	if _, err := s.apply(&raftstore.Manage{Request: req, Now: s.now().Unix(), Requestor: who}); err != nil {
		return nil, err
	}
	s.logger.Printf("qmgr: %s %s %s %s by %s", req.Verb, req.Object, req.Name, attrNames(req.Attrs), who)
	return nil, nil
}

func attrNames(as []model.ManagerAttr) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.Key()
	}
	return strings.Join(names, ",")
}

// handleDescribe answers list, print and export: ?object=queue&name=a&name=b.
// Without names every object of the type is described. Hook scripts are
// returned (content=1) to managers only.
func (s *Server) handleDescribe(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	snap := s.state()
	cfg := snap.Config()
	q := r.URL.Query()
	names := q["name"]
	withContent := q.Get("content") != ""
	if withContent && !isManager(id, &cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	var out []model.ConfigObject
	switch q.Get("object") {
	case manager.Server:
		o := manager.DescribeServer(&cfg)
		info := s.serverInfo(snap)
		o.Items = append([]model.ConfigItem{
			{Name: "server_state", Values: []string{info.State}, ReadOnly: true},
			{Name: "total_jobs", Values: []string{strconv.Itoa(info.TotalJobs)}, ReadOnly: true},
			{Name: "state_count", Values: []string{stateCount(info.StateCount)}, ReadOnly: true},
		}, o.Items...)
		o.Items = append(o.Items, model.ConfigItem{Name: "pbs_version", Values: []string{info.Version}, ReadOnly: true})
		out = append(out, o)
	case manager.Queue:
		if len(names) == 0 {
			names = model.SortedKeys(cfg.Queues)
		}
		info := s.serverInfo(snap)
		for _, n := range names {
			qc, ok := cfg.Queues[n]
			if !ok {
				return nil, model.Err(model.PBSEUnknownQueue)
			}
			o := manager.DescribeQueue(&qc)
			for _, qi := range info.Queues {
				if qi.Name == n {
					o.Items = append(o.Items[:1:1], append([]model.ConfigItem{
						{Name: "total_jobs", Values: []string{strconv.Itoa(qi.TotalJobs)}, ReadOnly: true},
						{Name: "state_count", Values: []string{stateCount(qi.StateCount)}, ReadOnly: true},
					}, o.Items[1:]...)...)
				}
			}
			out = append(out, o)
		}
	case manager.Node:
		if len(names) == 0 {
			for _, v := range snap.Vnodes() {
				out = append(out, manager.DescribeNode(v))
			}
			break
		}
		for _, n := range names {
			v := snap.Vnode(n)
			if v == nil {
				return nil, model.Err(model.PBSEUnknownNode)
			}
			out = append(out, manager.DescribeNode(v))
		}
	case manager.Resource:
		if len(names) == 0 {
			for _, d := range manager.CustomResources(cfg.Defs) {
				out = append(out, manager.DescribeResource(d))
			}
			break
		}
		for _, n := range names {
			d, ok := cfg.Defs[n]
			if !ok {
				return nil, model.Errorf(model.PBSEUnknownResource, " %s", n)
			}
			out = append(out, manager.DescribeResource(d))
		}
	case manager.Sched:
		for _, n := range names {
			if n != "default" {
				return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: the only scheduler is default"}
			}
		}
		out = append(out, manager.DescribeSched(&cfg))
	case manager.Hook:
		if len(names) == 0 {
			names = model.SortedKeys(cfg.Hooks)
		}
		for _, n := range names {
			h, ok := cfg.Hooks[n]
			if !ok {
				return nil, &model.PBSError{Code: manager.PBSEHookError, Msg: n + " does not exist!"}
			}
			out = append(out, manager.DescribeHook(&h, withContent))
		}
	default:
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: unknown object type"}
	}
	return api.DescribeResponse{Server: cfg.Name, Objects: out}, nil
}

// stateCount is the PBS state_count layout.
func stateCount(m map[string]int) string {
	var b strings.Builder
	for _, st := range []struct{ name, code string }{{"Transit", "T"}, {"Queued", "Q"}, {"Held", "H"}, {"Waiting", "W"}, {"Running", "R"}, {"Exiting", "E"}, {"Begun", "B"}} {
		b.WriteString(st.name + ":" + strconv.Itoa(m[st.code]) + " ")
	}
	return b.String()
}
