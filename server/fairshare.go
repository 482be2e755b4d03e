package server

import (
	"context"
	"net/http"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/schedglue"
)

// fairshareRoutes serve pbsfs: anyone may read the tree and its usage (as
// OpenPBS's pbsfs prints it to any user who can read the file); only
// managers change usage.
func (s *Server) fairshareRoutes(mux *http.ServeMux) {
	mux.Handle("GET "+api.Version+"/fairshare", s.wrap(s.handleFairshare, false))
	mux.Handle("POST "+api.Version+"/fairshare", s.wrap(s.handleFairshareChange, false))
}

func (s *Server) handleFairshare(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	snap := s.state()
	cfg := snap.Config()
	fs := cfg.Sched.Fairshare
	// The tree the cycle builds (with the queued jobs' entities), so ranks
	// agree with qstat's fairshare_position.
	f := schedglue.Fairshare(&cfg, snap, schedglue.Schedulable(snap))
	if f == nil {
		f = policy.NewFairshare(fs, snap.FairshareUsage(), nil)
	}
	decayTime, factor := fs.Decay()
	usageRes := model.DefaultFairshareRes
	if fs != nil && fs.UsageRes != "" {
		usageRes = fs.UsageRes
	}
	out := api.FairshareResponse{Enabled: fs != nil && fs.Enabled, Entity: fs.EntityKind(), UsageRes: usageRes,
		DecayTime: decayTime, DecayFactor: factor, LastDecay: snap.FairshareLastDecay()}
	for _, e := range f.Entries() {
		out.Entries = append(out.Entries, api.FairshareEntry{Name: e.Name, Parent: e.Parent, Depth: e.Depth,
			Shares: e.Shares, Perc: e.Perc, Usage: e.Usage, Factor: e.Factor, Rank: e.Rank})
	}
	return out, nil
}

func (s *Server) handleFairshareChange(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.FairshareRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	cfg := s.state().Config()
	if !isManager(id, &cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	switch req.Op {
	case raftstore.FairshareSet, raftstore.FairshareDecay, raftstore.FairshareTrim, raftstore.FairshareReset:
	default:
		return nil, model.Errorf(model.PBSEInvalidRequest, ": fairshare operation %q", req.Op)
	}
	if !s.mayEmit(raftstore.FairshareType) {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: a server of the cluster does not support fairshare yet"}
	}
	_, err := s.apply(&raftstore.Fairshare{Op: req.Op, Entity: req.Entity, Usage: req.Usage, Now: s.now().Unix()})
	if err == nil {
		s.logger.Printf("fairshare %s %s by %s@%s", req.Op, req.Entity, id.User, id.Host)
	}
	return nil, err
}

// fairshareLoop (leader) decays usage every fairshare_decay_time. It
// checks every second against the replicated clock and commits only when a
// period is due (or to start the clock), so the log sees one entry per
// period; a new leader simply continues from the replicated clock.
func (s *Server) fairshareLoop(ctx context.Context) {
	every(ctx, time.Second, true, func() {
		if !s.mayEmit(raftstore.FairshareType) {
			return
		}
		snap := s.state()
		if !snap.Configured() {
			return
		}
		cfg := snap.Config()
		decayTime, _ := cfg.Sched.Fairshare.Decay()
		now := s.now().Unix()
		last := snap.FairshareLastDecay()
		if last != 0 && now-last < decayTime {
			return // not due (or this leader's clock is behind the last decay)
		}
		if _, err := s.apply(&raftstore.Fairshare{Op: raftstore.FairshareTick, Now: now}); err != nil {
			s.logger.Printf("fairshare decay: %v", err)
		}
	})
}

// fairshareAnnotator returns what fills in the fairshare position of a
// queued job's status when fair_share orders them (qstat -f
// fairshare_position, tracejob), from the same tree and usage the
// scheduler's cycle builds; nil when fair_share is off. The tree is built
// on the first queued job only: a reply without one costs nothing.
func (s *Server) fairshareAnnotator(snap *raftstore.StateSnapshot, cfg *model.ServerConfig) func(*api.JobStatus) {
	if cfg.Sched.Fairshare == nil || !cfg.Sched.Fairshare.Enabled {
		return nil
	}
	var f *policy.Fairshare
	built := false
	return func(st *api.JobStatus) {
		if st.State != model.StateQueued {
			return
		}
		if !built {
			f, built = schedglue.Fairshare(cfg, snap, schedglue.Schedulable(snap)), true
		}
		if f != nil {
			st.Fairshare = f.Position(st.Job)
		}
	}
}
