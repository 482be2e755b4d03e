package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// pbs_ralter (docs/reservations.md, "Altering a reservation"): the PBS
// rules of req_modifyReservation, checked against a snapshot, then one
// AlterResv command; the scheduler confirms a change of times or request
// in its next cycle or the reservation goes back to what it was.

func (s *Server) handleResvAlter(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.ResvAlterRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	rid := r.PathValue("id")
	snap := s.state()
	cfg := snap.Config()
	rv, err := ownResv(snap, &cfg, rid, id)
	if err != nil {
		return nil, err
	}
	if req.Force && !isManager(id, &cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	if err := s.modifyresvHooks(r.Context(), rv, &req, id, &cfg); err != nil {
		return nil, err
	}
	if !s.levelAtLeast(raftstore.AlterResvType.Level()) {
		return nil, &model.PBSError{Code: model.PBSENoSupport, Msg: model.MsgNoSupport + " (a server of the cluster is not upgraded yet)"}
	}
	now := s.now().Unix()
	cmd, err := buildAlter(&req, rv, id, &cfg, snap, now)
	if err != nil {
		return nil, err
	}
	cmd.Direct = cmd.Force && cmd.Reconfirm && !cfg.Scheduling
	if _, err := s.apply(cmd); err != nil {
		return nil, err
	}
	s.logger.Printf("%s;Attempting to modify reservation at request of %s%s", rid, cmd.Requestor, alterLogDetail(cmd))
	out := &api.ResvAlterResponse{Text: rid + " ALTER REQUESTED"}
	switch {
	case cmd.Direct || cmd.Shrink:
		out.Text = rid + " CONFIRMED"
	case cmd.Reconfirm && rv.State != model.ResvUnconfirmed:
		out.Pending = true
	}
	return out, nil
}

// ownResv is the reservation rid when the caller may change or delete
// it: its owner, an operator or a manager.
func ownResv(snap *raftstore.StateSnapshot, cfg *model.ServerConfig, rid string, id *Identity) (*model.Reservation, error) {
	rv := snap.Reservation(rid)
	if rv == nil || rv.Gone != 0 {
		return nil, model.Err(model.PBSEUnknownResvID)
	}
	if rv.User != id.User && !isOperator(id, cfg) {
		return nil, model.Err(model.PBSEPerm)
	}
	return rv, nil
}

// alterLogDetail lists the new times and select for the server log.
func alterLogDetail(c *raftstore.AlterResv) string {
	if !c.Reconfirm {
		return ""
	}
	d := fmt.Sprintf(" start=%s end=%s", pbsDate(c.Start), pbsDate(c.End))
	if c.Select != nil {
		d += " select=" + c.Select.String()
	}
	return d
}

// buildAlter checks a pbs_ralter request as PBS does and computes the new
// values.
func buildAlter(req *api.ResvAlterRequest, rv *model.Reservation, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot, now int64) (*raftstore.AlterResv, error) {
	if rv.State == model.ResvBeingAltered {
		return nil, model.Err(model.PBSEBadState)
	}
	c := &raftstore.AlterResv{ID: rv.ID, Requestor: id.User + "@" + id.Host, Now: now, Force: req.Force}
	timed := req.Start != 0 || req.End != 0 || req.Duration != 0
	if req.Force && (!timed || req.Select != "") {
		// -Wforce applies to times only, as in PBS.
		return nil, model.Err(model.PBSENoSupport)
	}
	if req.Select != "" && rv.Standing() {
		return nil, &model.PBSError{Code: model.PBSENoSupport, Msg: model.MsgNoSupport + " (the select of a standing reservation cannot be altered)"}
	}
	if err := resvAlterAttrs(req, rv, c); err != nil {
		return nil, err
	}
	if !timed && req.Select == "" {
		return c, nil
	}
	running := rv.State == model.ResvRunning
	busy := running && resvQueueBusy(snap, rv.Queue)
	if busy && req.Select != "" {
		if timed {
			return nil, &model.PBSError{Code: model.PBSEResvNotEmpty, Msg: model.MsgResvNotEmpty}
		}
		return c, buildShrink(c, req, rv, cfg, snap) // resv_shrink.go
	}
	if req.Start != 0 {
		if busy {
			return nil, &model.PBSError{Code: model.PBSEResvNotEmpty, Msg: model.MsgResvNotEmpty}
		}
		if req.Start <= now {
			return nil, badTimeSpec()
		}
	}
	if busy && req.End != 0 && req.Duration != 0 {
		return nil, &model.PBSError{Code: model.PBSEResvNotEmpty, Msg: model.MsgResvNotEmpty}
	}
	start, end, dur, err := alterTimes(req, rv)
	if err != nil {
		return nil, err
	}
	if end <= now {
		return nil, badTimeSpec()
	}
	// A standing reservation's current occurrence must end before the
	// next one starts (PBS's rule; the later ones keep their times).
	if rv.Standing() && rv.Index > 0 && rv.Index < len(rv.Occurrences) && end >= rv.Occurrences[rv.Index] {
		return nil, &model.PBSError{Code: model.PBSEStdgResvConflict, Msg: model.MsgStdgResvConflict}
	}
	c.Reconfirm, c.StartChanged = true, start != rv.Start
	c.Start, c.End, c.Duration = start, end, dur
	res := map[string]string{"select": rv.Select.String(), "place": rv.Place.String(), "walltime": model.FormatDuration(dur)}
	if req.Select != "" {
		if err := checkText("Resource_List.select", req.Select); err != nil {
			return nil, err
		}
		res["select"] = req.Select
	}
	list, sel, place, err := resolveResources(res, cfg)
	if err != nil {
		return nil, err
	}
	if model.SelectAOE(sel) != rv.AOE {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Resource_List.select (the AOE of a reservation cannot change)")
	}
	if place.String() != rv.Place.String() {
		list["place"] = rv.Place.String()
	}
	c.ResourceList, c.Select = list, sel
	return c, nil
}

// alterTimes derives the new start, end and duration as PBS does: a new
// start keeps the duration, a new end alone keeps the start, a new
// duration alone keeps the start; given together they must agree.
func alterTimes(req *api.ResvAlterRequest, rv *model.Reservation) (int64, int64, int64, error) {
	start, end, dur := rv.Start, rv.End, rv.Duration
	switch {
	case req.Start != 0 && req.End != 0 && req.Duration != 0:
		start, end, dur = req.Start, req.End, req.Duration
		if start+dur != end {
			return 0, 0, 0, badTimeSpec()
		}
	case req.Start != 0 && req.End != 0:
		start, end = req.Start, req.End
		dur = end - start
	case req.Start != 0 && req.Duration != 0:
		start, dur = req.Start, req.Duration
		end = start + dur
	case req.End != 0 && req.Duration != 0:
		end, dur = req.End, req.Duration
		start = end - dur
		if start != rv.Start && rv.State == model.ResvRunning {
			// PBS keeps a running reservation's start: -E and -D must
			// agree with it.
			return 0, 0, 0, badTimeSpec()
		}
	case req.Start != 0:
		start = req.Start
		end = start + dur
	case req.End != 0:
		end = req.End
		dur = end - start
	case req.Duration != 0:
		dur = req.Duration
		end = start + dur
	}
	if dur <= 0 || end <= start {
		return 0, 0, 0, badTimeSpec()
	}
	return start, end, dur, nil
}

// resvAlterAttrs fills in the changes that need no scheduler: name, ACLs and
// mail.
func resvAlterAttrs(req *api.ResvAlterRequest, rv *model.Reservation, c *raftstore.AlterResv) error {
	if req.Name != nil {
		if !validJobName(*req.Name) {
			return model.Errorf(model.PBSEBadAttrVal, " Reserve_Name")
		}
		c.Name = req.Name
	}
	if req.Users != nil {
		for _, u := range *req.Users {
			if err := checkText("Authorized_Users", u); err != nil {
				return err
			}
		}
		users := resvUsers(rv.Owner, *req.Users)
		c.Users = &users
	}
	if req.Groups != nil {
		groups, err := resvACLList("Authorized_Groups", *req.Groups)
		if err != nil {
			return err
		}
		c.Groups = &groups
	}
	if req.MailPoints != nil {
		if !validResvMailPoints(*req.MailPoints) {
			return model.Errorf(model.PBSEBadAttrVal, " Mail_Points")
		}
		c.MailPoints = req.MailPoints
	}
	if req.MailUsers != nil {
		if err := checkMailUsers(*req.MailUsers); err != nil {
			return err
		}
		c.MailUsers = req.MailUsers
	}
	return nil
}

// resvUsers is Authorized_Users from -U entries: the owner first and
// always ("-user" cannot deny the owner).
func resvUsers(owner string, entries []string) []string {
	users := []string{owner}
	for _, u := range entries {
		u = strings.TrimPrefix(strings.TrimSpace(u), "+")
		if u == "" || strings.HasPrefix(u, "-") {
			continue
		}
		if u != owner && !containsName(users, u) {
			users = append(users, u)
		}
	}
	return users
}

// resvACLList reads -G or -H entries: "+name" and "name" allow, "-name"
// denies (kept as is: host ACLs honour it); empty entries are dropped.
func resvACLList(attr string, entries []string) ([]string, error) {
	var out []string
	for _, e := range entries {
		e = strings.TrimPrefix(strings.TrimSpace(e), "+")
		if e == "" {
			continue
		}
		if err := checkText(attr, e); err != nil || strings.ContainsAny(e, " ,\t") {
			return nil, model.Errorf(model.PBSEBadAttrVal, " %s", attr)
		}
		if !containsName(out, e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// validResvMailPoints accepts PBS's reservation mail points: "n" alone or
// any of a (deleted), b (begins), c (confirmed), e (ends).
func validResvMailPoints(v string) bool {
	if v == "n" {
		return true
	}
	return v != "" && strings.Trim(v, "abce") == ""
}

// resvQueueBusy reports whether unfinished jobs are in a queue.
func resvQueueBusy(snap *raftstore.StateSnapshot, queue string) bool {
	for _, j := range snap.Jobs() {
		if j.Queue == queue && !j.IsFinished() {
			return true
		}
	}
	return false
}

// resvACLsAndMail fills in pbs_rsub's -G, -H, -m and -M.
func resvACLsAndMail(req *api.ResvSubmitRequest, r *model.Reservation) error {
	groups, err := resvACLList("Authorized_Groups", req.Groups)
	if err != nil {
		return err
	}
	hosts, err := resvACLList("Authorized_Hosts", req.Hosts)
	if err != nil {
		return err
	}
	if req.MailPoints != "" && !validResvMailPoints(req.MailPoints) {
		return model.Errorf(model.PBSEBadAttrVal, " Mail_Points")
	}
	if err := checkMailUsers(req.MailUsers); err != nil {
		return err
	}
	r.AuthorizedGroups, r.AuthorizedHosts = groups, hosts
	r.MailPoints, r.MailUsers = req.MailPoints, req.MailUsers
	return nil
}

// abandonStaleAlters (leader's reservation loop) gives up the pending
// alterations whose old or new end has come, so that a reservation never
// outlives its end waiting for a scheduler; it returns when the next one
// is due.
func (s *Server) abandonStaleAlters(snap *raftstore.StateSnapshot, now int64) int64 {
	next := now + 3600
	for _, r := range snap.Reservations() {
		if r.Gone != 0 || r.State != model.ResvBeingAltered || r.Alter == nil {
			continue
		}
		due := min(r.End, r.Alter.End)
		if now < due {
			next = min(next, due)
			continue
		}
		if _, err := s.apply(&raftstore.AlterResv{ID: r.ID, Abandon: true, Now: now}); err != nil {
			s.logger.Printf("%s;abandon alteration: %v", r.ID, err)
			continue
		}
		s.logger.Printf("%s;%s: its end came before the scheduler decided", r.ID, model.MsgResvAlterDenied)
	}
	return next
}
