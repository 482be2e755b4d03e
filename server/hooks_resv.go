package server

import (
	"context"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// The resvsub (pbs_rsub) and modifyresv (pbs_ralter) hook events
// (docs/hooks.md). A hook sees the request under PBS's reservation
// attribute names and may accept, reject with a message, or change the
// request; changes are merged into the request before the server checks
// it, so a hook cannot make the server accept what it would refuse from
// the user (bad times, unknown resources, the owner left out of
// Authorized_Users).

// resvsubHooks runs the resvsub hooks on a pbs_rsub request.
func (s *Server) resvsubHooks(ctx context.Context, req *api.ResvSubmitRequest, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, "resvsub")) == 0 {
		return nil
	}
	ev := s.hookEvent("resvsub", id, s.state(), cfg)
	ev.Resv = submitAttrs(req, id)
	return s.runResvHooks(ctx, cfg, ev, func(k, v string) error { return applyResvSubChange(req, k, v) })
}

// runResvHooks runs a reservation event's hooks and merges each accepted
// hook's changes, in order, with apply.
func (s *Server) runResvHooks(ctx context.Context, cfg *model.ServerConfig, ev hooks.Event, apply func(k, v string) error) error {
	outs, err := s.runServerHooks(ctx, cfg, ev)
	if err != nil {
		return err
	}
	for _, o := range outs {
		for _, k := range model.SortedKeys(o.Changes) {
			if err := apply(k, o.Changes[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// submitAttrs is a pbs_rsub request as the hook's resv object.
func submitAttrs(req *api.ResvSubmitRequest, id *Identity) map[string]any {
	r := &model.Reservation{
		Name: orDefault(req.Name, "NULL"), Owner: id.User + "@" + id.Host,
		Start: req.Start, End: req.End, Duration: req.Duration, ResourceList: req.Resources,
		AuthorizedUsers: req.Users, AuthorizedGroups: req.Groups, AuthorizedHosts: req.Hosts,
		MailPoints: req.MailPoints, MailUsers: req.MailUsers, RRule: req.RRule,
	}
	return hooks.ResvAttrs(r)
}

// applyResvSubChange merges one hook change into a pbs_rsub request.
func applyResvSubChange(req *api.ResvSubmitRequest, k, v string) error {
	switch k {
	case "Authorized_Hosts":
		req.Hosts = splitComma(v)
		return nil
	case "Resource_List.select", "Resource_List.place":
	default:
		if strings.HasPrefix(k, "Resource_List.") {
			break
		}
		return applyResvCommonChange(k, v, &req.Name, &req.Start, &req.End, &req.Duration,
			&req.MailPoints, &req.MailUsers, func(u []string) { req.Users = u }, func(g []string) { req.Groups = g })
	}
	name := strings.TrimPrefix(k, "Resource_List.")
	if name == "" || strings.ContainsAny(name, "=,") {
		return model.Errorf(model.PBSEBadAttrVal, " %s", k)
	}
	if req.Resources == nil {
		req.Resources = map[string]string{}
	}
	req.Resources[name] = v
	return nil
}

// applyResvCommonChange merges the changes resvsub and modifyresv share.
func applyResvCommonChange(k, v string, name *string, start, end, dur *int64, mailPoints, mailUsers *string,
	users, groups func([]string)) error {
	num := func(dst *int64) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return model.Errorf(model.PBSEBadAttrVal, " %s", k)
		}
		*dst = n
		return nil
	}
	switch k {
	case "Reserve_Name":
		*name = v
	case "reserve_start":
		return num(start)
	case "reserve_end":
		return num(end)
	case "reserve_duration":
		return num(dur)
	case "Mail_Points":
		*mailPoints = v
	case "Mail_Users":
		*mailUsers = v
	case "Authorized_Users":
		users(splitComma(v))
	case "Authorized_Groups":
		groups(splitComma(v))
	default:
		return model.Errorf(model.PBSEBadAttrVal, " %s (not settable by a hook)", k)
	}
	return nil
}

func splitComma(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// modifyresvHooks runs the modifyresv hooks on a pbs_ralter request: the
// event's resv is the request (resvid and what it changes), resv_o the
// reservation as it is.
func (s *Server) modifyresvHooks(ctx context.Context, rv *model.Reservation, req *api.ResvAlterRequest, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, "modifyresv")) == 0 {
		return nil
	}
	ev := s.hookEvent("modifyresv", id, s.state(), cfg)
	ev.Resv = alterAttrsOf(rv.ID, req)
	ev.ResvO = hooks.ResvAttrs(rv)
	return s.runResvHooks(ctx, cfg, ev, func(k, v string) error { return applyResvAlterChange(req, k, v) })
}

// alterAttrsOf is a pbs_ralter request as the hook's resv object.
func alterAttrsOf(rid string, req *api.ResvAlterRequest) map[string]any {
	a := map[string]any{"resvid": rid, "id": rid}
	num := func(k string, v int64) {
		if v != 0 {
			a[k] = v
		}
	}
	num("reserve_start", req.Start)
	num("reserve_end", req.End)
	num("reserve_duration", req.Duration)
	if req.Select != "" {
		a["Resource_List"] = map[string]any{"select": req.Select}
	}
	str := func(k string, v *string) {
		if v != nil {
			a[k] = *v
		}
	}
	str("Reserve_Name", req.Name)
	str("Mail_Points", req.MailPoints)
	str("Mail_Users", req.MailUsers)
	if req.Users != nil {
		a["Authorized_Users"] = strings.Join(*req.Users, ",")
	}
	if req.Groups != nil {
		a["Authorized_Groups"] = strings.Join(*req.Groups, ",")
	}
	return a
}

// applyResvAlterChange merges one hook change into a pbs_ralter request.
func applyResvAlterChange(req *api.ResvAlterRequest, k, v string) error {
	if k == "Resource_List.select" {
		req.Select = v
		return nil
	}
	var name, mp, mu string
	if req.Name != nil {
		name = *req.Name
	}
	if req.MailPoints != nil {
		mp = *req.MailPoints
	}
	if req.MailUsers != nil {
		mu = *req.MailUsers
	}
	if err := applyResvCommonChange(k, v, &name, &req.Start, &req.End, &req.Duration, &mp, &mu,
		func(u []string) { req.Users = &u }, func(g []string) { req.Groups = &g }); err != nil {
		return err
	}
	switch k {
	case "Reserve_Name":
		req.Name = &name
	case "Mail_Points":
		req.MailPoints = &mp
	case "Mail_Users":
		req.MailUsers = &mu
	}
	return nil
}
