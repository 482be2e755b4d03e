package server

import (
	"net/http"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/model/rrule"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// Reservations: the API routes and the submission rules
// (docs/reservations.md).

func (s *Server) resvRoutes(mux *http.ServeMux) {
	v := api.Version
	mux.Handle("POST "+v+"/resvs", s.wrap(s.handleResvSubmit, false))
	mux.Handle("GET "+v+"/resvs", s.wrap(s.handleResvs, false))
	mux.Handle("POST "+v+"/resvs/{id}/delete", s.wrap(s.handleResvDelete, false))
	mux.Handle("POST "+v+"/resvs/{id}/alter", s.wrap(s.handleResvAlter, false)) // resv_alter.go
}

func badTimeSpec() error {
	return &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: model.MsgBadTimeSpec}
}

func (s *Server) handleResvSubmit(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.ResvSubmitRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	snap := s.state()
	if !snap.Configured() {
		return nil, &model.PBSError{Code: model.PBSENotLeader, Msg: "Server is not ready yet"}
	}
	cfg := snap.Config()
	if err := s.resvsubHooks(r.Context(), &req, id, &cfg); err != nil { // hooks_resv.go
		return nil, err
	}
	if newResvForm(&req) && !s.levelAtLeast(raftstore.LevelResv) {
		return nil, &model.PBSError{Code: model.PBSENoSupport, Msg: model.MsgNoSupport + " (a server of the cluster is not upgraded yet)"}
	}
	resv, err := buildResvExtra(&req, id, &cfg, snap, s.now().Unix()) // resv_maint.go
	if err != nil {
		return nil, err
	}
	out, err := s.apply(&raftstore.SubmitResv{Resv: resv, Now: s.now().Unix()})
	if err != nil {
		return nil, err
	}
	rid := out.(string)
	s.logger.Printf("%s;Reservation submitted by %s, start %d, end %d", rid, resv.Owner, resv.Start, resv.End)
	return api.ResvSubmitResponse{ID: rid}, nil
}

// buildResv validates a pbs_rsub request: exactly the PBS time rules (two
// of start, end and duration, a walltime standing in for the duration, all
// three consistent, no start in the past), the resource request normalized
// like a job's, one AOE at most, and the authorized users with the owner
// always among them.
func buildResv(req *api.ResvSubmitRequest, id *Identity, cfg *model.ServerConfig, now int64) (*model.Reservation, error) {
	if req.Name != "" && !validJobName(req.Name) {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Reserve_Name")
	}
	for _, u := range req.Users {
		if err := checkText("Authorized_Users", u); err != nil {
			return nil, err
		}
	}
	if err := checkResourceTexts(req.Resources); err != nil {
		return nil, err
	}
	res := map[string]string{}
	for k, v := range req.Resources {
		res[k] = v
	}
	start, end, dur := req.Start, req.End, req.Duration
	if dur == 0 {
		if wt, ok := res["walltime"]; ok {
			d, err := model.ParseDuration(wt)
			if err != nil || d <= 0 {
				return nil, model.Errorf(model.PBSEBadAttrVal, " Resource_List.walltime")
			}
			dur = d
		}
	}
	switch {
	case start != 0 && end != 0 && dur != 0:
		if start+dur != end {
			return nil, badTimeSpec()
		}
	case start != 0 && end != 0:
		dur = end - start
	case start != 0 && dur != 0:
		end = start + dur
	case end != 0 && dur != 0:
		start = end - dur
	default:
		return nil, badTimeSpec()
	}
	if dur <= 0 || end <= start || start < now {
		return nil, badTimeSpec()
	}
	res["walltime"] = model.FormatDuration(dur)
	list, sel, place, err := resolveResources(res, cfg)
	if err != nil {
		return nil, err
	}
	host := id.Host // from the connection, never from the request
	owner := id.User + "@" + host
	users := []string{owner}
	for _, u := range req.Users {
		u = strings.TrimPrefix(strings.TrimSpace(u), "+")
		if u == "" || strings.HasPrefix(u, "-") {
			continue // "-user" denies; the owner cannot be denied
		}
		if u != owner && !containsName(users, u) {
			users = append(users, u)
		}
	}
	r := &model.Reservation{
		Name:            orDefault(req.Name, "NULL"),
		Owner:           owner,
		User:            id.User,
		Token:           req.Token,
		Start:           start,
		End:             end,
		Duration:        dur,
		ResourceList:    list,
		Select:          sel,
		Place:           place,
		AOE:             model.SelectAOE(sel),
		AuthorizedUsers: users,
	}
	if err := resvACLsAndMail(req, r); err != nil { // -G, -H, -m, -M (resv_alter.go)
		return nil, err
	}
	if r.AOE != "" {
		r.Place.Sharing = model.SharingExcl // PBS forces place=excl for AOE reservations
		list["place"] = r.Place.String()
	}
	if req.RRule != "" {
		if req.TZ == "" {
			return nil, &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: "PBS_TZID environment variable is not set"}
		}
		occ, err := rrule.Expand(req.RRule, req.TZ, start)
		if err != nil {
			return nil, &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: "Bad time specification(s): " + err.Error()}
		}
		r.RRule, r.TZ, r.Occurrences = req.RRule, req.TZ, occ
		if len(occ) > 1 {
			for i := 1; i < len(occ); i++ {
				if occ[i] < occ[i-1]+dur {
					return nil, &model.PBSError{Code: model.PBSEBadTimeSpec, Msg: "Bad time specification(s): occurrences overlap"}
				}
			}
		} else {
			r.Occurrences = nil // a single occurrence is an advance reservation
		}
	}
	return r, nil
}

// handleResvs answers pbs_rstat: every reservation, or the ones named
// (each must exist). Tombstones are listed only on request (pbs_rsub -I).
func (s *Server) handleResvs(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	snap := s.state()
	defs := snap.Config().Defs
	gone := r.URL.Query().Get("gone") != ""
	ids := r.URL.Query()["id"]
	out := api.ResvsResponse{Resvs: []api.ResvInfo{}}
	add := func(rv *model.Reservation) {
		out.Resvs = append(out.Resvs, api.ResvInfo{Reservation: rv, ResvNodes: rv.ResvNodes(defs)})
	}
	if len(ids) == 0 {
		for _, rv := range snap.Reservations() {
			if rv.Gone == 0 || gone {
				add(rv)
			}
		}
		return out, nil
	}
	for _, rid := range ids {
		rv := snap.Reservation(rid)
		if rv == nil || (rv.Gone != 0 && !gone) {
			return nil, model.Err(model.PBSEUnknownResvID)
		}
		add(rv)
	}
	return out, nil
}

func (s *Server) handleResvDelete(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	rid := r.PathValue("id")
	snap := s.state()
	cfg := snap.Config()
	if _, err := ownResv(snap, &cfg, rid, id); err != nil {
		return nil, err
	}
	requestor := id.User + "@" + id.Host
	if _, err := s.apply(&raftstore.DeleteResv{ID: rid, Requestor: requestor, Now: s.now().Unix()}); err != nil {
		return nil, err
	}
	s.logger.Printf("%s;Reservation deleted at request of %s", rid, requestor)
	s.mailResvDeleted(rid) // mail_events.go
	return nil, nil
}

// admitResvJob is the PBS rule for jobs in a reservation's queue: a job in
// an AOE reservation must ask for the same AOE, and a job asking for an
// AOE needs a reservation with that AOE ("Invalid provisioning request in
// chunk(s)"). Strata checks every job, including job-wide requests, which
// OpenPBS lets through.
func admitResvJob(j *model.Job, snap *raftstore.StateSnapshot, cfg *model.ServerConfig) error {
	if !model.IsResvQueue(j.Queue) {
		return nil
	}
	rv := snap.Reservation(j.Queue + "." + cfg.Name)
	if rv == nil {
		return nil
	}
	if model.SelectAOE(j.Select) != rv.AOE {
		return &model.PBSError{Code: model.PBSEIvalAOEChunk, Msg: model.MsgIvalAOEChunk}
	}
	return nil
}

// newResvForm reports whether a pbs_rsub request uses a form of command
// level raftstore.LevelResv, which a server of an earlier release would
// store without its meaning.
func newResvForm(req *api.ResvSubmitRequest) bool {
	return len(req.MaintHosts) > 0 || req.Qmove != "" || req.Job != "" || req.DeleteIdleTime != 0
}
