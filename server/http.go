package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// maxBody bounds request bodies (a job script travels in one).
const maxBody = 16 << 20

type handler func(w http.ResponseWriter, r *http.Request, id *Identity) (any, error)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	v := api.Version
	mux.Handle("POST "+v+"/jobs", s.wrap(s.handleSubmit, false))
	mux.Handle("GET "+v+"/jobs", s.wrap(s.handleJobs, false))
	mux.Handle("POST "+v+"/jobs/{id}/delete", s.wrap(s.handleDelete, false))
	mux.Handle("GET "+v+"/nodes", s.wrap(s.handleNodes, false))
	s.jobOpRoutes(mux)
	s.orderRoutes(mux)
	s.manageRoutes(mux)
	mux.Handle("GET "+v+"/server", s.wrap(s.handleServer, false))
	mux.Handle("POST "+v+"/agent/register", s.wrap(s.handleRegister, true))
	mux.Handle("POST "+v+"/agent/heartbeat", s.wrap(s.handleHeartbeat, true))
	mux.Handle("GET "+v+"/agent/work", s.wrap(s.handleWork, true))
	mux.Handle("POST "+v+"/agent/events", s.wrap(s.handleEvents, true))
	s.agentHookRoutes(mux)
	s.simRoutes(mux)       // simulated hosts, multiplexed (agent_sim.go)
	s.provisionRoutes(mux) // provisioning (provision_api.go)
	s.resvRoutes(mux)      // reservations (resv.go)
	s.operatorRoutes(mux)  // strata operator (operator.go)
	s.raftIndexRoute(mux)  // reads on followers (readindex.go)
	s.fairshareRoutes(mux) // pbsfs (fairshare.go)
	s.webRoutes(mux)       // strata web login (web_glue.go)
	return mux
}

// wrap authenticates, runs the handler and writes its JSON answer or PBS
// error. Agent routes need an agent certificate; an agent may call nothing
// else (each agent handler then binds the request to the agent's host).
func (s *Server) wrap(h handler, agentOnly bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := s.identify(r)
		if err == nil && s.node.IsLeader() {
			// A new leader answers only once its FSM holds everything
			// committed before it (peers.go): a stale state would list
			// finished jobs as runnable to agents.
			err = s.waitLeaderReady(r.Context())
		} else if err == nil {
			// Agents talk to the leader (heartbeats live in its memory);
			// a user's write is forwarded to it (forward.go).
			if agentOnly && id.Agent {
				err = model.Err(model.PBSENotLeader)
			} else if !agentOnly && !id.Agent && r.Method != http.MethodGet && !id.Forwarded {
				if err = s.forward(w, r, id); err == nil {
					return
				}
			} else if !agentOnly && !id.Agent && r.Method == http.MethodGet {
				err = s.readBarrier(r, id) // readindex.go
			}
		}
		if err == nil && agentOnly && !id.Agent {
			err = model.Errorf(model.PBSEPerm, "(agent routes need an agent certificate)")
		}
		if err == nil && !agentOnly && id.Agent {
			err = model.Errorf(model.PBSEPerm, "(agent %s may only use agent routes)", id.Host)
		}
		var out any
		if err == nil {
			out, err = h(w, r, id)
		}
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			pe, ok := model.AsPBSError(err)
			if !ok {
				s.logger.Printf("%s %s: %v", r.Method, r.URL.Path, err)
				pe = &model.PBSError{Code: model.PBSESystem, Msg: model.Message(model.PBSESystem) + err.Error()}
			}
			w.WriteHeader(statusFor(pe.Code))
			json.NewEncoder(w).Encode(pe)
			return
		}
		if out == nil {
			out = struct{}{}
		}
		// A forwarding follower waits until it has applied this much.
		w.Header().Set(IndexHeader, strconv.FormatUint(s.node.AppliedIndex(), 10))
		if st, ok := out.(jsonStreamer); ok {
			if err := st.writeJSON(w); err != nil {
				s.logger.Printf("%s %s: %v", r.Method, r.URL.Path, err)
			}
			return
		}
		json.NewEncoder(w).Encode(out)
	})
}

func statusFor(code int) int {
	switch code {
	case model.PBSEUnknownJobID, model.PBSEUnknownNode, model.PBSEUnknownQueue, model.PBSEUnknownResvID:
		return http.StatusNotFound
	case model.PBSEPerm:
		return http.StatusForbidden
	case model.PBSENotLeader:
		return http.StatusServiceUnavailable
	case model.PBSESystem:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

func decodeBody(r *http.Request, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("read request: %w", err)
	}
	if len(body) > maxBody {
		return &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: body too large"}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: " + err.Error()}
	}
	return nil
}

// --- commands' routes -------------------------------------------------------

func (s *Server) handleSubmit(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.SubmitRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	snap := s.state()
	if !snap.Configured() {
		return nil, &model.PBSError{Code: model.PBSENotLeader, Msg: "Server is not ready yet"}
	}
	cfg := snap.Config()
	if req.DefaultArgs != nil && *req.DefaultArgs != cfg.DefaultQsubArguments {
		return nil, &model.PBSError{Code: model.PBSEStaleDefaults, Msg: cfg.DefaultQsubArguments}
	}
	if req.CreateResvFromJob && !s.levelAtLeast(raftstore.LevelResv) {
		return nil, &model.PBSError{Code: model.PBSENoSupport, Msg: model.MsgNoSupport + " (a server of the cluster is not upgraded yet)"}
	}
	job, err := buildJob(&req, id, &cfg)
	if err != nil {
		return nil, err
	}
	if err := checkBeforeRights(job.Deps(), id, &cfg, snap); err != nil {
		return nil, err
	}
	if err := admit(job, id, &cfg, snap); err != nil {
		return nil, err
	}
	if err := checkSoftWalltime(req.Resources, job.ResourceList, id, &cfg); err != nil {
		return nil, err
	}
	if err := s.queuejobHooks(r.Context(), job, id, &cfg); err != nil {
		return nil, err
	}
	resp, err := s.apply(&raftstore.SubmitJob{Job: job, Now: s.now().Unix()})
	if err != nil {
		return nil, err
	}
	return api.SubmitResponse{JobID: resp.(string)}, nil
}

// handleJobs answers qstat. With ids, each must exist (and be unfinished
// unless history was asked for); without, every visible job is listed.
func (s *Server) handleJobs(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	snap := s.state()
	cfg := snap.Config()
	history := r.URL.Query().Get("history") != ""
	subjobs := r.URL.Query().Get("subjobs") != ""
	ids := r.URL.Query()["id"]
	seeAll := cfg.QueryOtherJobs || isOperator(id, &cfg)
	var parts []jobPart // jobstream.go: subjobs are made as the reply is written
	if len(ids) > 0 {
		for _, jid := range ids {
			var found []jobPart
			var j *model.Job
			if subjobs {
				found, j = jobsForID(snap, jid)
			} else if j = lookupJob(snap, jid); j != nil {
				found = []jobPart{onePart(j)}
			}
			if j == nil {
				return nil, model.Err(model.PBSEUnknownJobID)
			}
			if !seeAll && j.User != id.User {
				return nil, model.Err(model.PBSEPerm)
			}
			// A finished subjob of a live array is shown, as the
			// parent keeps its state (X).
			if j.IsFinished() && !history && !(j.IsSubjob() && liveParent(snap, j)) {
				return nil, model.Err(model.PBSEHistJobID)
			}
			parts = append(parts, found...)
		}
	} else {
		for _, j := range snap.JobRows() {
			if j.IsSubjob() {
				continue // listed after their parent, with -t only
			}
			if (j.IsFinished() && !history) || (!seeAll && j.User != id.User) {
				continue
			}
			parts = append(parts, onePart(j))
			if subjobs && j.Array != nil {
				parts = append(parts, subjobsPart(j, j.Array.Start, j.Array.End, 1))
			}
		}
	}
	reply := &jobsReply{snap: snap, server: s.serverInfo(snap), parts: parts,
		annotate: s.fairshareAnnotator(snap, &cfg)} // fairshare.go
	reply.summary = r.URL.Query().Get("view") == api.JobsViewSummary // qstat's tables
	return reply, nil
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.DeleteRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	snap := s.state()
	cfg := snap.Config()
	j, jid, err := checkDelete(snap, &cfg, id, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if _, err := s.apply(&raftstore.DeleteJob{JobID: jid, Requestor: id.User + "@" + id.Host, Force: req.Force, Purge: req.Purge, Now: s.now().Unix()}); err != nil {
		return nil, err
	}
	s.mailDeletedQueued(j, id.User+"@"+id.Host) // mail_events.go
	return nil, nil
}

// checkDelete reads the job a qdel id names (a subjob without a record or
// a range: its array decides) and checks that the caller may delete it;
// it returns the job and the id to propose (a range clamped to the array).
func checkDelete(snap *raftstore.StateSnapshot, cfg *model.ServerConfig, id *Identity, jid string) (*model.Job, string, error) {
	j := snap.Job(jid)
	if j == nil {
		j = parentOf(snap, jid)
	}
	if j == nil {
		return nil, "", model.Err(model.PBSEUnknownJobID)
	}
	if !mayModify(id, j, cfg) {
		return nil, "", model.Err(model.PBSEPerm)
	}
	if j.Array != nil {
		var err error
		if jid, err = clampRangeID(j, jid); err != nil {
			return nil, "", err
		}
	}
	return j, jid, nil
}

func (s *Server) handleNodes(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	snap := s.state()
	return api.NodesResponse{Server: s.serverInfo(snap), Vnodes: snap.Vnodes()}, nil
}

func (s *Server) handleServer(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	snap := s.state()
	info := s.serverInfo(snap)
	info.Provision = serverProvision(snap, s.now().Unix())
	info.Raft = s.raftInfo()
	return info, nil
}

func (s *Server) serverInfo(snap *raftstore.StateSnapshot) api.ServerInfo {
	cfg := snap.Config()
	info := api.ServerInfo{
		Name:       cfg.Name,
		Version:    api.PBSVersion,
		Leader:     s.node.IsLeader(),
		State:      "Active",
		Defs:       cfg.Defs,
		History:    cfg.JobHistoryEnable,
		DefaultQ:   cfg.DefaultQueue,
		StateCount: map[string]int{},
	}
	if info.Name == "" {
		info.Name = s.cfg.Name
	}
	info.Comment = cfg.Comment
	info.DefaultQsubArguments = cfg.DefaultQsubArguments
	info.MaxJobSequenceID = cfg.MaxJobSequenceID
	perQueue := map[string]int{}
	for _, name := range model.SortedKeys(cfg.Queues) {
		q := cfg.Queues[name]
		perQueue[name] = len(info.Queues)
		info.Queues = append(info.Queues, api.QueueInfo{Name: q.Name, Type: q.Type, Priority: q.Priority, Enabled: q.Enabled, Started: q.Started, StateCount: map[string]int{}})
	}
	snap.EachUnfinishedJob(func(j *model.Job) {
		info.TotalJobs++
		info.StateCount[j.State]++
		if i, ok := perQueue[j.Queue]; ok {
			info.Queues[i].TotalJobs++
			info.Queues[i].StateCount[j.State]++
		}
	})
	return info
}
