package server

import (
	"errors"
	"net/http"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// Batched qhold, qrls and qdel (api/batch.go): each id is checked against the
// caller exactly as the per-job routes check it, and the ids that pass
// commit in one Raft entry (raftstore.HoldJobs, ReleaseJobs, DeleteJobs) once every
// voter supports it, otherwise one entry per id as before.

// maxBatchBody bounds a batched request: MaxBatchIDs ids of any sane length.
const maxBatchBody = 256 << 10

func (s *Server) batchOpRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/batch/hold", s.wrap(s.handleBatchHold, false))
	mux.Handle("POST "+v+"/batch/release", s.wrap(s.handleBatchRelease, false))
	mux.Handle("POST "+v+"/batch/delete", s.wrap(s.handleBatchDelete, false))
}

func (s *Server) handleBatchHold(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return s.batchHoldOrRelease(r, id, true)
}

func (s *Server) handleBatchRelease(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return s.batchHoldOrRelease(r, id, false)
}

// decodeBatch reads a batched request and bounds its ids.
func decodeBatch(r *http.Request, req any, ids func() []string) error {
	tooLarge := model.Errorf(model.PBSEInvalidRequest, " (a batched request has at most %d bytes)", maxBatchBody)
	if r.ContentLength > maxBatchBody {
		return tooLarge
	}
	r.Body = http.MaxBytesReader(nil, r.Body, maxBatchBody)
	if err := decodeBody(r, req); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge
		}
		return err
	}
	// The FSM refuses a batched entry above raftstore.MaxBatchJobs: a
	// request it would refuse whole is refused here, before any work.
	limit := min(api.MaxBatchIDs, raftstore.MaxBatchJobs)
	if n := len(ids()); n == 0 || n > limit {
		return model.Errorf(model.PBSEInvalidRequest, " (%d job ids, from 1 to %d in one request)", n, limit)
	}
	return nil
}

func (s *Server) batchHoldOrRelease(r *http.Request, id *Identity, hold bool) (any, error) {
	var req api.BatchHoldRequest
	if err := decodeBatch(r, &req, func() []string { return req.IDs }); err != nil {
		return nil, err
	}
	errs := make([]error, len(req.IDs))
	snap := s.state()
	cfg := snap.Config()
	var jobIDs []string
	var slots []int // index in req.IDs of each of jobIDs
	for i, raw := range req.IDs {
		var j *model.Job
		j, errs[i] = checkHoldOrRelease(snap, &cfg, id, raw, req.Holds, hold)
		if errs[i] == nil && holdOrReleaseChanges(req.Holds, hold) {
			jobIDs = append(jobIDs, j.ID)
			slots = append(slots, i)
		}
	}
	for i, err := range s.applyHoldOrRelease(jobIDs, req.Holds, requestor(id), hold) {
		errs[slots[i]] = err
	}
	return batchReply(errs), nil
}

func (s *Server) handleBatchDelete(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.BatchDeleteRequest
	if err := decodeBatch(r, &req, func() []string { return req.IDs }); err != nil {
		return nil, err
	}
	errs := make([]error, len(req.IDs))
	snap := s.state()
	cfg := snap.Config()
	var jobs []raftstore.DeleteJob
	var targets []*model.Job // the job each of jobs names, for the mail
	var slots []int
	by, now := requestor(id), s.now().Unix()
	for i, raw := range req.IDs {
		j, jid, err := checkDelete(snap, &cfg, id, raw)
		if errs[i] = err; err != nil {
			continue
		}
		jobs = append(jobs, raftstore.DeleteJob{JobID: jid, Requestor: by, Force: req.Force, Purge: req.Purge, Now: now})
		targets = append(targets, j)
		slots = append(slots, i)
	}
	res := s.applyJobs(len(jobs), func(i int) raftstore.Command { return &jobs[i] }, &raftstore.DeleteJobs{Jobs: jobs})
	for i, err := range res {
		if errs[slots[i]] = err; err == nil {
			s.mailDeletedQueued(targets[i], by) // mail_events.go
		}
	}
	return batchReply(errs), nil
}

// batchReply is the wire form of the per-id errors.
func batchReply(errs []error) api.BatchReply {
	reply := api.BatchReply{Errors: make([]*model.PBSError, len(errs))}
	for i, err := range errs {
		if err != nil {
			reply.Errors[i] = asPBSError(err)
		}
	}
	return reply
}

// checkHoldOrRelease runs the checks of qhold and qrls on one id (the
// per-job route's and each of a batch's) and returns the job. "qrls -h n"
// passes: see holdOrReleaseChanges.
func checkHoldOrRelease(snap *raftstore.StateSnapshot, cfg *model.ServerConfig, id *Identity, raw, holds string, hold bool) (*model.Job, error) {
	if err := refuseSubjob(raw); err != nil {
		return nil, err
	}
	j, err := checkTarget(snap, cfg, id, raw)
	if err != nil {
		return nil, err
	}
	if !holdOrReleaseChanges(holds, hold) {
		return j, nil
	}
	return j, checkHoldTypes(holds, id, cfg)
}

// holdOrReleaseChanges is false for "qrls -h n", which releases nothing
// (as in OpenPBS) and so commits nothing.
func holdOrReleaseChanges(holds string, hold bool) bool { return hold || holds != "n" }

// applyHoldOrRelease commits the changes and returns one error per job.
func (s *Server) applyHoldOrRelease(jobIDs []string, holds, by string, hold bool) []error {
	now := s.now().Unix()
	if hold {
		jobs := make([]raftstore.HoldJob, len(jobIDs))
		for i, jid := range jobIDs {
			jobs[i] = raftstore.HoldJob{JobID: jid, Holds: holds, Requestor: by, Now: now}
		}
		return s.applyJobs(len(jobs), func(i int) raftstore.Command { return &jobs[i] }, &raftstore.HoldJobs{Jobs: jobs})
	}
	jobs := make([]raftstore.ReleaseJob, len(jobIDs))
	for i, jid := range jobIDs {
		jobs[i] = raftstore.ReleaseJob{JobID: jid, Holds: holds, Requestor: by, Now: now}
	}
	return s.applyJobs(len(jobs), func(i int) raftstore.Command { return &jobs[i] }, &raftstore.ReleaseJobs{Jobs: jobs})
}

// applyJobs commits n per-job commands and returns one error per job: as
// the one batched entry at command level LevelBatchOps, one entry per job
// (single(i)) below it, since a voter of an earlier release would refuse
// the batched entry. One job is always its own entry, as the per-job
// routes commit it.
func (s *Server) applyJobs(n int, single func(int) raftstore.Command, batched raftstore.Command) []error {
	out := make([]error, n)
	if n == 0 {
		return out
	}
	if n == 1 || !s.levelAtLeast(raftstore.LevelBatchOps) {
		for i := range out {
			_, out[i] = s.apply(single(i))
		}
		return out
	}
	res, err := s.apply(batched)
	results, ok := res.(raftstore.BatchResults)
	for i := range out {
		switch {
		case err != nil:
			out[i] = err // the whole entry failed: every job reports it
		case !ok || len(results) != n:
			out[i] = model.Errorf(model.PBSESystem, "batched entry returned %T", res)
		default:
			out[i] = results[i]
		}
	}
	return out
}

// asPBSError is the wire form of a per-id error, as the per-job route's
// error reply would carry it.
func asPBSError(err error) *model.PBSError {
	if pe, ok := model.AsPBSError(err); ok {
		return pe
	}
	return &model.PBSError{Code: model.PBSESystem, Msg: model.Message(model.PBSESystem) + err.Error()}
}
