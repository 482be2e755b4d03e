package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/schedglue"
)

// Routes of the job and vnode operations. Each handler checks permissions
// and values against a snapshot, then proposes one typed command; the FSM
// re-checks the state rules at commit.
func (s *Server) jobOpRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/jobs/{id}/hold", s.wrap(s.handleHold, false))
	mux.Handle("POST "+v+"/jobs/{id}/release", s.wrap(s.handleRelease, false))
	mux.Handle("POST "+v+"/jobs/{id}/alter", s.wrap(s.handleAlter, false))
	mux.Handle("POST "+v+"/jobs/{id}/signal", s.wrap(s.handleSignal, false))
	mux.Handle("POST "+v+"/jobs/{id}/move", s.wrap(s.handleMove, false))
	mux.Handle("POST "+v+"/jobs/{id}/rerun", s.wrap(s.handleRerun, false))
	mux.Handle("POST "+v+"/jobs/{id}/run", s.wrap(s.handleRun, false))
	mux.Handle("POST "+v+"/nodes/mark", s.wrap(s.handleMarkNodes, false))
	s.batchOpRoutes(mux)
}

func requestor(id *Identity) string { return id.User + "@" + id.Host }

// targetJob reads the job a route names and checks that the caller may
// change it.
func (s *Server) targetJob(r *http.Request, id *Identity) (*model.Job, *model.ServerConfig, error) {
	snap := s.state()
	cfg := snap.Config()
	j, err := checkTarget(snap, &cfg, id, r.PathValue("id"))
	if err != nil {
		return nil, nil, err
	}
	return j, &cfg, nil
}

// checkTarget reads the job jobID names in snap and checks that the
// caller may change it (one id of a route or of a batch).
func checkTarget(snap *raftstore.StateSnapshot, cfg *model.ServerConfig, id *Identity, jobID string) (*model.Job, error) {
	j := lookupJob(snap, jobID)
	if j == nil {
		return nil, model.Err(model.PBSEUnknownJobID)
	}
	if !mayModify(id, j, cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	return j, nil
}

// operatorTarget decodes an operator-only request about one job and
// returns the job: it must exist, and the caller must be an operator.
func (s *Server) operatorTarget(r *http.Request, id *Identity, req any) (*model.Job, error) {
	if err := decodeBody(r, req); err != nil {
		return nil, err
	}
	j, cfg, err := s.targetJob(r, id)
	if err != nil {
		return nil, err
	}
	if !isOperator(id, cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	return j, nil
}

// checkHoldTypes validates a hold list and the caller's right to each
// type: u the owner, operators and managers; o operators and managers; s
// managers only.
func checkHoldTypes(holds string, id *Identity, cfg *model.ServerConfig) error {
	if holds == "" || strings.Trim(holds, "uos") != "" {
		return model.Errorf(model.PBSEBadAttrVal, " Hold_Types")
	}
	if strings.Contains(holds, "s") && !isManager(id, cfg) {
		return model.Err(model.PBSEPerm)
	}
	if strings.Contains(holds, "o") && !isOperator(id, cfg) {
		return model.Err(model.PBSEPerm)
	}
	return nil
}

func (s *Server) handleHold(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return s.holdOrRelease(r, id, true)
}

func (s *Server) handleRelease(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return s.holdOrRelease(r, id, false)
}

func (s *Server) holdOrRelease(r *http.Request, id *Identity, hold bool) (any, error) {
	var req api.HoldRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	snap := s.state()
	cfg := snap.Config()
	j, err := checkHoldOrRelease(snap, &cfg, id, r.PathValue("id"), req.Holds, hold)
	if err != nil || !holdOrReleaseChanges(req.Holds, hold) {
		return nil, err
	}
	return nil, s.applyHoldOrRelease([]string{j.ID}, req.Holds, requestor(id), hold)[0]
}

func (s *Server) handleSignal(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.SignalRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	// An array or a range signals its running subjobs.
	snap := s.state()
	cfg := snap.Config()
	targets, err := signalTargets(snap, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	for _, j := range targets {
		if !mayModify(id, j, &cfg) {
			return nil, model.Err(model.PBSEPerm)
		}
	}
	sig, err := normalizeSignal(req.Signal)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(sig, "suspend") || strings.HasSuffix(sig, "resume") {
		if !isOperator(id, &cfg) {
			return nil, model.Err(model.PBSEPerm)
		}
	}
	for _, j := range targets {
		if _, err := s.apply(&raftstore.SignalJob{JobID: j.ID, Signal: sig, Requestor: requestor(id), Now: s.now().Unix()}); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// normalizeSignal accepts SIGKILL, KILL, 9 and the special names, and
// returns the SIGxxx form (or the special name) the agent acts on.
func normalizeSignal(in string) (string, error) {
	switch in {
	case "":
		return "SIGTERM", nil
	case "suspend", "resume", "admin-suspend", "admin-resume":
		return in, nil
	case "SIGNULL", "NULL", "0":
		return "SIGNULL", nil
	}
	if n, err := strconv.Atoi(in); err == nil {
		if name := unix.SignalName(unix.Signal(n)); name != "" {
			return name, nil
		}
		return "", model.Err(model.PBSEUnknownSignal)
	}
	name := strings.ToUpper(in)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if unix.SignalNum(name) == 0 {
		return "", model.Err(model.PBSEUnknownSignal)
	}
	return name, nil
}

func (s *Server) handleMove(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.MoveRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	j, cfg, err := s.targetWhole(r, id)
	if err != nil {
		return nil, err
	}
	queue, _, _ := strings.Cut(req.Queue, "@")
	if queue == "" {
		queue = cfg.DefaultQueue
	}
	if err := admitMove(j, queue, cfg, s.state()); err != nil {
		return nil, err
	}
	if err := s.jobHooks(r.Context(), "movejob", j, queue, id, cfg); err != nil {
		return nil, err
	}
	_, err = s.apply(&raftstore.MoveJob{JobID: j.ID, Queue: queue, Requestor: requestor(id), Now: s.now().Unix()})
	return nil, err
}

func (s *Server) handleRerun(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.RerunRequest
	j, err := s.operatorTarget(r, id, &req)
	if err != nil {
		return nil, err
	}
	_, err = s.apply(&raftstore.RerunJob{JobID: j.ID, Force: req.Force, Requestor: requestor(id), Now: s.now().Unix()})
	return nil, err
}

// handleRun is qrun: an operator's run decision. With vnodes, chunk copies
// go to the named vnodes in turn; without, the scheduler's placement picks
// vnodes for this job alone, ignoring the order of the queue.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.RunRequest
	j, err := s.operatorTarget(r, id, &req)
	if err != nil {
		return nil, err
	}
	if j.State != model.StateQueued {
		return nil, model.Err(model.PBSEBadState)
	}
	snap := s.state()
	now := s.now().Unix()
	var run model.RunDecision
	if len(req.Vnodes) > 0 {
		if run, err = execOnVnodes(j, req.Vnodes, snap); err != nil {
			return nil, err
		}
	} else {
		in := schedglue.Input(snap, now)
		c := j.Copy()
		c.SetNeverRunEpoch(0)
		in.Queued = []*model.Job{c}
		in.Withheld = nil       // qrun overrides max_run, as in PBS
		in.Config.Preempt = nil // qrun runs on free resources only (docs/scheduling.md, "Preemption")
		plan := scheduler.Schedule(in)
		if len(plan.Runs) == 0 {
			msg := model.Message(model.PBSEResourceUnavail)
			if len(plan.Comments) > 0 {
				msg = plan.Comments[0].Comment
			}
			return nil, &model.PBSError{Code: model.PBSEResourceUnavail, Msg: msg}
		}
		d := plan.Runs[0]
		run = model.RunDecision{JobID: j.ID, Exec: d.Exec, Exclusive: d.Exclusive}
	}
	_, err = s.apply(&raftstore.RunJobNow{Run: run, Requestor: requestor(id), Now: now})
	return nil, err
}

// execOnVnodes places copy i of the job's chunks on vnodes[i mod n].
func execOnVnodes(j *model.Job, vnodes []string, snap *raftstore.StateSnapshot) (model.RunDecision, error) {
	run := model.RunDecision{JobID: j.ID, Exclusive: j.Place.Sharing == "excl" || j.Place.Sharing == "exclhost"}
	for _, name := range vnodes {
		if snap.Vnode(name) == nil {
			return run, model.Errorf(model.PBSEUnknownNode, " %s", name) // "Unknown node  <name>", as PBS appends names
		}
	}
	i := 0
	for _, c := range j.Select {
		mpi := 1
		if v, ok := c.Get("mpiprocs"); ok {
			mpi, _ = strconv.Atoi(v)
		}
		for k := 0; k < c.Count; k++ {
			v := snap.Vnode(vnodes[i%len(vnodes)])
			i++
			amounts := map[string]float64{}
			for name, amt := range c.Consume {
				amounts[name] = amt
			}
			run.Exec = append(run.Exec, model.ExecChunk{
				Shares:   []model.VnodeShare{{Vnode: v.Name, Host: v.Host, Amounts: amounts}},
				MPIProcs: mpi,
			})
		}
	}
	if len(run.Exec) == 0 {
		return run, fmt.Errorf("job %s has no chunks", j.ID)
	}
	return run, nil
}

func (s *Server) handleMarkNodes(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.MarkNodesRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	cfg := s.state().Config()
	if !isOperator(id, &cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	if err := checkTexts(textAttr{"comment", req.Comment}); err != nil {
		return nil, err
	}
	_, err := s.apply(&raftstore.MarkVnodes{Vnodes: req.Nodes, Offline: req.Offline, Comment: req.Comment, Now: s.now().Unix()})
	return nil, err
}
