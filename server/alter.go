package server

import (
	"net/http"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// handleAlter is qalter. Every change is validated before the one AlterJob
// command is proposed, so a request is applied whole or not at all.
func (s *Server) handleAlter(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	var req api.AlterRequest
	if err := decodeBody(r, &req); err != nil {
		return nil, err
	}
	j, cfg, err := s.targetWhole(r, id)
	if err != nil {
		return nil, err
	}
	if err := s.modifyjobHooks(r.Context(), j, &req, id, cfg); err != nil {
		return nil, err
	}
	if err := checkAlterTexts(&req); err != nil {
		return nil, err
	}
	cmd := &raftstore.AlterJob{
		JobID: j.ID, Requestor: requestor(id), Now: s.now().Unix(),
		Name: req.Name, Priority: req.Priority, Rerun: req.Rerunable, ExecTime: req.ExecTime,
		Account: req.Account, Project: req.Project, MailPoints: req.MailPoints, MailUsers: req.MailUsers,
		Join: req.Join, Keep: req.Keep, Output: req.Output, Error: req.Error, Shell: req.Shell,
		GroupList: req.GroupList, MaxRunSubjobs: req.MaxRunSubjobs,
	}
	if req.MaxRunSubjobs != nil && (j.Array == nil || *req.MaxRunSubjobs < 0) {
		return nil, model.Errorf(model.PBSEBadAttrVal, " max_run_subjobs")
	}
	if req.Name != nil && !validJobName(*req.Name) {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Job_Name")
	}
	if req.Priority != nil && (*req.Priority < -1024 || *req.Priority > 1023) {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Priority")
	}
	if req.Hold != nil {
		h := *req.Hold
		if h != "n" {
			if err := checkHoldTypes(h, id, cfg); err != nil {
				return nil, err
			}
		}
		// Dropping a hold needs the same right as setting it.
		if removed := removedHolds(j.Hold, h); removed != "" {
			if err := checkHoldTypes(removed, id, cfg); err != nil {
				return nil, err
			}
		}
		cmd.Hold = &h
	}
	if err := checkPathHosts(req.Output, req.Error); err != nil {
		return nil, err
	}
	if req.Stagein != nil || req.Stageout != nil {
		// The agent reads the lists when the job starts: a running job
		// keeps the ones it started with.
		if j.IsRunning() {
			return nil, model.Err(model.PBSEBadState)
		}
		for _, st := range []struct {
			name string
			in   *string
			dst  **string
		}{{"stagein", req.Stagein, &cmd.Stagein}, {"stageout", req.Stageout, &cmd.Stageout}} {
			if st.in == nil {
				continue
			}
			v, err := stageList(st.name, *st.in)
			if err != nil {
				return nil, err
			}
			*st.dst = &v
		}
	}
	if req.Depend != nil {
		text, deps, err := parseDepend(*req.Depend, cfg.Name)
		if err != nil {
			return nil, err
		}
		if err := checkBeforeRights(deps, id, cfg, s.state()); err != nil {
			return nil, err
		}
		cmd.Depend, cmd.Deps = &text, deps
	}
	if len(req.Resources) > 0 {
		res, err := alteredResources(j, req.Resources, cfg)
		if err != nil {
			return nil, err
		}
		if err := checkSoftWalltime(req.Resources, res.List, id, cfg); err != nil {
			return nil, err
		}
		if j.IsRunning() {
			if err := raftstore.CheckRunningAlter(j, res.List); err != nil {
				return nil, err
			}
		}
		if !isOperator(id, cfg) {
			if err := onlyLowered(j.ResourceList, res.List, cfg.Defs); err != nil {
				return nil, err
			}
		}
		cmd.Resources = res
	}
	_, err = s.apply(cmd)
	return nil, err
}

// checkPathHosts refuses an Output_Path or Error_Path (nil: unchanged)
// whose host part is not a plain host name: it reaches the agent's SSH
// client, and must never be "user@host" or an option.
func checkPathHosts(output, errPath *string) error {
	for _, p := range []struct {
		name string
		v    *string
	}{{"Output_Path", output}, {"Error_Path", errPath}} {
		if p.v == nil {
			continue
		}
		if h, _ := model.SplitHostPath(*p.v); h != "" && !model.ValidHostName(h) {
			return model.Errorf(model.PBSEBadAttrVal, " %s", p.name)
		}
	}
	return nil
}

// stageList checks and normalizes a stagein or stageout value.
func stageList(name, v string) (string, error) {
	specs, err := model.ParseStageList(v)
	if err != nil {
		return "", model.Errorf(model.PBSEBadAttrVal, " %s", name)
	}
	return model.FormatStageList(specs), nil
}

// removedHolds lists the hold letters of have that are not in keep.
func removedHolds(have, keep string) string {
	var out []rune
	for _, r := range have {
		if r != 'n' && !containsRune(keep, r) {
			out = append(out, r)
		}
	}
	return string(out)
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

// alteredResources merges -l entries over a job's request and derives the
// new Resource_List, select and place by the submission rules.
func alteredResources(j *model.Job, changes map[string]string, cfg *model.ServerConfig) (*raftstore.AlteredRes, error) {
	in := map[string]string{}
	for k, v := range j.ResourceList {
		switch k {
		case "ncpus", "mem", "nodect":
			continue // derived from the select
		}
		in[k] = v
	}
	_, newSelect := changes["select"]
	for k, v := range changes {
		if d, ok := cfg.Defs[k]; ok && d.HostLevel() && !newSelect {
			// An old-style job-wide request replaces the select.
			delete(in, "select")
			delete(in, "place")
		}
		if k == "nodes" {
			delete(in, "select")
			delete(in, "place")
		}
		in[k] = v
	}
	list, sel, place, err := resolveResources(in, cfg)
	if err != nil {
		return nil, err
	}
	return &raftstore.AlteredRes{List: list, Select: sel, Place: place}, nil
}

// onlyLowered refuses a request that raises any numeric resource: an
// unprivileged user may only lower what they asked for.
func onlyLowered(old, new map[string]string, defs model.ResourceDefs) error {
	for _, k := range model.SortedKeys(new) {
		d, ok := defs[k]
		if !ok || !d.Numeric() {
			continue
		}
		was, had := old[k]
		if !had {
			if k == "nodect" {
				continue
			}
			return model.Errorf(model.PBSEPerm, " Resource_List.%s", k)
		}
		a, err1 := d.Amount(new[k])
		b, err2 := d.Amount(was)
		if err1 == nil && err2 == nil && a > b {
			return model.Errorf(model.PBSEPerm, " Resource_List.%s", k)
		}
	}
	return nil
}
