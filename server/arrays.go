package server

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// checkArraySize enforces max_array_size (default 10000) on a submission.
func checkArraySize(j *model.Job, cfg *model.ServerConfig) error {
	if j.Array == nil {
		return nil
	}
	limit := cfg.MaxArraySize
	if limit <= 0 {
		limit = model.DefaultMaxArraySize
	}
	if j.Array.Size() > limit {
		return model.Err(model.PBSEArrayTooLarge)
	}
	if !j.Rerun {
		// An array job must be rerunnable (pbs-cli.md §2).
		return model.Errorf(model.PBSEBadAttrVal, " Rerunable")
	}
	return nil
}

// lookupJob finds the job an id names: a stored record, or a view of a
// subjob that has no record (queued, or done without history) built from
// its parent. nil when the id names nothing.
func lookupJob(snap *raftstore.StateSnapshot, id string) *model.Job {
	if j := snap.Job(id); j != nil {
		return j
	}
	pid, inside, ok := model.SplitArrayID(id)
	if !ok || inside == "" {
		return nil
	}
	p := snap.Job(pid)
	if p == nil || p.Array == nil {
		return nil
	}
	idx, err := strconv.ParseInt(inside, 10, 64)
	if err != nil {
		return nil
	}
	o, ok := p.Array.Ordinal(idx)
	if !ok {
		return nil
	}
	s := p.NewSubjob(idx)
	switch {
	case p.Array.Queued.Contains(o):
		if p.State == model.StateHeld || p.State == model.StateWaiting {
			s.State, s.Substate = p.State, p.Substate
		}
	case p.Array.Done.Contains(o):
		s.State, s.Substate = model.StateExpired, model.SubExpired
	default:
		return nil
	}
	return s
}

// parentOf returns the array parent named by a subjob or range id, or nil.
func parentOf(snap *raftstore.StateSnapshot, id string) *model.Job {
	pid, _, ok := model.SplitArrayID(id)
	if !ok {
		return nil
	}
	if p := snap.Job(pid); p != nil && p.Array != nil {
		return p
	}
	return nil
}

// isRangeID reports whether id names a range of subjobs (seq[a-b]).
func isRangeID(id string) bool {
	_, inside, ok := model.SplitArrayID(id)
	if !ok {
		return false
	}
	for _, r := range inside {
		if r == '-' || r == ':' {
			return true
		}
	}
	return false
}

// refuseSubjob is the answer of qhold, qrls, qalter and qorder to a subjob
// or range: they take whole jobs and arrays only.
func refuseSubjob(id string) error {
	if _, inside, ok := model.SplitArrayID(id); ok && inside != "" {
		return model.Errorf(model.PBSEInvalidRequest, " (subjobs and ranges are not accepted; name the whole array %s)", arrayParentHint(id))
	}
	return nil
}

func arrayParentHint(id string) string {
	pid, _, _ := model.SplitArrayID(id)
	return pid
}

// signalTargets lists the subjobs a qsig of a parent or range signals:
// only those running (R or S). Other ids name one job.
func signalTargets(snap *raftstore.StateSnapshot, id string) ([]*model.Job, error) {
	p := parentOf(snap, id)
	_, inside, _ := model.SplitArrayID(id)
	if p == nil || (inside != "" && !isRangeID(id)) {
		j := lookupJob(snap, id)
		if j == nil {
			return nil, model.Err(model.PBSEUnknownJobID)
		}
		return []*model.Job{j}, nil
	}
	from, to, step := p.Array.Start, p.Array.End, int64(1)
	if inside != "" {
		var err error
		if from, to, step, err = model.ParseIndexRange(inside); err != nil {
			return nil, model.Err(model.PBSEUnknownJobID)
		}
	}
	var out []*model.Job
	for _, s := range snap.SubjobRows(p.ID) { // running ones have rows
		if s.ArrayIndex() < from || s.ArrayIndex() > to || (s.ArrayIndex()-from)%step != 0 {
			continue
		}
		if s.State == model.StateRunning || s.State == model.StateSuspended {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, model.Err(model.PBSEBadState)
	}
	return out, nil
}

// orderRoutes adds qorder's route.
func (s *Server) orderRoutes(mux *http.ServeMux) {
	mux.Handle("POST "+api.Version+"/jobs/{id}/order", s.wrap(s.handleOrder, false))
}

// handleOrder is qorder: the job and req.Other swap places in the order.
// The caller must be allowed to modify both.
func (s *Server) handleOrder(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.OrderRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	a, cfg, err := s.targetWhole(r, id)
	if err != nil {
		return nil, err
	}
	if err := refuseSubjob(req.Other); err != nil {
		return nil, err
	}
	snap := s.state()
	b := snap.Job(req.Other)
	if b == nil {
		return nil, model.Err(model.PBSEUnknownJobID)
	}
	if !mayModify(id, b, cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	_, err = s.apply(&raftstore.OrderJobs{JobID: a.ID, Other: b.ID, Requestor: requestor(id), Now: s.now().Unix()})
	return nil, err
}

// expandSubjobs lists the subjobs of parent p with indices in [from, to]
// by step, in index order (eachSubjob, for callers that need a slice).
func expandSubjobs(snap *raftstore.StateSnapshot, p *model.Job, from, to, step int64) []*model.Job {
	var out []*model.Job
	eachSubjob(snap, p, from, to, step, func(s *model.Job) error {
		out = append(out, s)
		return nil
	})
	return out
}

// jobsForID answers one qstat operand with subjobs asked for (-t): a
// parent and all its subjobs, a range's subjobs, or the one job named;
// as reply parts, so that the subjobs are made while the reply is written.
func jobsForID(snap *raftstore.StateSnapshot, jid string) ([]jobPart, *model.Job) {
	p := parentOf(snap, jid)
	_, inside, _ := model.SplitArrayID(jid)
	switch {
	case p != nil && inside == "":
		return []jobPart{onePart(p), subjobsPart(p, p.Array.Start, p.Array.End, 1)}, p
	case p != nil && isRangeID(jid):
		from, to, step, err := model.ParseIndexRange(inside)
		if err != nil {
			return nil, nil
		}
		return []jobPart{subjobsPart(p, from, to, step)}, p
	}
	if j := lookupJob(snap, jid); j != nil {
		return []jobPart{onePart(j)}, j
	}
	return nil, nil
}

// liveParent reports whether subjob j's array has not finished.
func liveParent(snap *raftstore.StateSnapshot, j *model.Job) bool {
	p := snap.Job(j.ArrayID())
	return p != nil && !p.IsFinished()
}

// targetWhole is targetJob for the commands that take whole jobs and
// arrays only (qhold, qrls, qalter, qmove, qorder).
func (s *Server) targetWhole(r *http.Request, id *Identity) (*model.Job, *model.ServerConfig, error) {
	if err := refuseSubjob(r.PathValue("id")); err != nil {
		return nil, nil, err
	}
	return s.targetJob(r, id)
}

// clampRangeID validates a subjob range id of array p before it is
// proposed ("seq[a-b:s].server") and returns it with its end clamped to the
// array's last index, so that the numbers in the log entry never reach
// beyond what the array holds. An id that does not parse, or whose range
// starts after the array's end, names no job.
func clampRangeID(p *model.Job, id string) (string, error) {
	_, inside, ok := model.SplitArrayID(id)
	if !ok || inside == "" || !isRangeID(id) {
		return id, nil
	}
	from, to, step, err := model.ParseIndexRange(inside)
	if err != nil || from > p.Array.End {
		return "", model.Err(model.PBSEUnknownJobID)
	}
	to = min(to, p.Array.End)
	rng := strconv.FormatInt(from, 10) + "-" + strconv.FormatInt(to, 10)
	if step != 1 {
		rng += ":" + strconv.FormatInt(step, 10)
	}
	base, rest, _ := strings.Cut(p.ID, "[]")
	return base + "[" + rng + "]" + rest, nil
}
