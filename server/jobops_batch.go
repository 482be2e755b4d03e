package server

import (
	"net/http"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// Batched qhold and qrls (api/batch.go): each id is checked against the
// caller exactly as the per-job routes check it, and the ids that pass
// commit in one Raft entry (raftstore.HoldJobs, ReleaseJobs) once every
// voter supports it, otherwise one entry per id as before.

// maxBatchBody bounds a batched request: MaxBatchIDs ids of any sane length.
const maxBatchBody = 256 << 10

func (s *Server) batchOpRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/batch/hold", s.wrap(s.handleBatchHold, false))
	mux.Handle("POST "+v+"/batch/release", s.wrap(s.handleBatchRelease, false))
}

func (s *Server) handleBatchHold(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return s.batchHoldOrRelease(r, id, true)
}

func (s *Server) handleBatchRelease(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	return s.batchHoldOrRelease(r, id, false)
}

func (s *Server) batchHoldOrRelease(r *http.Request, id *Identity, hold bool) (any, error) {
	var req api.BatchHoldRequest
	r.Body = http.MaxBytesReader(nil, r.Body, maxBatchBody)
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	if len(req.IDs) == 0 || len(req.IDs) > api.MaxBatchIDs {
		return nil, model.Errorf(model.PBSEInvalidRequest, " (%d job ids, from 1 to %d in one request)", len(req.IDs), api.MaxBatchIDs)
	}
	errs := make([]error, len(req.IDs))
	snap := s.state()
	cfg := snap.Config()
	var jobIDs []string
	var slots []int // index in req.IDs of each of jobIDs
	for i, raw := range req.IDs {
		errs[i] = s.checkHoldOrRelease(snap, &cfg, id, raw, req.Holds, hold)
		if errs[i] == nil && (hold || req.Holds != "n") {
			j := lookupJob(snap, raw)
			jobIDs = append(jobIDs, j.ID)
			slots = append(slots, i)
		}
	}
	for i, err := range s.applyHoldOrRelease(jobIDs, req.Holds, requestor(id), hold) {
		errs[slots[i]] = err
	}
	reply := api.BatchReply{Errors: make([]*model.PBSError, len(errs))}
	for i, err := range errs {
		if err != nil {
			reply.Errors[i] = asPBSError(err)
		}
	}
	return reply, nil
}

// checkHoldOrRelease runs holdOrRelease's checks on one id, in its order.
// "qrls -h n" passes and releases nothing.
func (s *Server) checkHoldOrRelease(snap *raftstore.StateSnapshot, cfg *model.ServerConfig, id *Identity, raw, holds string, hold bool) error {
	if err := refuseSubjob(raw); err != nil {
		return err
	}
	if _, err := checkTarget(snap, cfg, id, raw); err != nil {
		return err
	}
	if holds == "n" && !hold {
		return nil
	}
	return checkHoldTypes(holds, id, cfg)
}

// applyHoldOrRelease commits the changes and returns one error per job:
// one entry for them all at command level LevelBatchOps, one per job below
// it (a voter of an earlier release would refuse the batched entry).
func (s *Server) applyHoldOrRelease(jobIDs []string, holds, by string, hold bool) []error {
	out := make([]error, len(jobIDs))
	if len(jobIDs) == 0 {
		return out
	}
	now := s.now().Unix()
	if !s.levelAtLeast(raftstore.LevelBatchOps) {
		for i, jid := range jobIDs {
			if hold {
				_, out[i] = s.apply(&raftstore.HoldJob{JobID: jid, Holds: holds, Requestor: by, Now: now})
			} else {
				_, out[i] = s.apply(&raftstore.ReleaseJob{JobID: jid, Holds: holds, Requestor: by, Now: now})
			}
		}
		return out
	}
	var cmd raftstore.Command
	if hold {
		c := &raftstore.HoldJobs{Jobs: make([]raftstore.HoldJob, len(jobIDs))}
		for i, jid := range jobIDs {
			c.Jobs[i] = raftstore.HoldJob{JobID: jid, Holds: holds, Requestor: by, Now: now}
		}
		cmd = c
	} else {
		c := &raftstore.ReleaseJobs{Jobs: make([]raftstore.ReleaseJob, len(jobIDs))}
		for i, jid := range jobIDs {
			c.Jobs[i] = raftstore.ReleaseJob{JobID: jid, Holds: holds, Requestor: by, Now: now}
		}
		cmd = c
	}
	res, err := s.apply(cmd)
	results, ok := res.(raftstore.BatchResults)
	for i := range out {
		switch {
		case err != nil:
			out[i] = err // the whole entry failed: every job reports it
		case !ok || len(results) != len(out):
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
