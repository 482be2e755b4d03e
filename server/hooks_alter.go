package server

import (
	"context"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// modifyjobHooks runs the modifyjob hooks on a qalter request, before it is
// validated, as PBS does: the hook's job is the request (only what it
// changes) and job_o the job as it is. Changes the hooks make to the
// request are merged into req, which is then validated and authorized as
// the requestor's own (a hook cannot give a user more than qalter would).
func (s *Server) modifyjobHooks(ctx context.Context, j *model.Job, req *api.AlterRequest, id *Identity, cfg *model.ServerConfig) error {
	if len(model.OrderedHooks(cfg.Hooks, "modifyjob")) == 0 {
		return nil
	}
	ev := s.hookEvent("modifyjob", id, s.state(), cfg)
	ev.Job, ev.Request = j, alterAttrs(j, req)
	outs, err := s.runServerHooks(ctx, cfg, ev)
	if err != nil {
		return err
	}
	for _, o := range outs {
		if err := applyAlterHookChanges(req, o.Changes); err != nil {
			return err
		}
	}
	return nil
}

// alterAttrs is a qalter request under PBS attribute names, with the job's
// id: what PBS's modifyjob event shows as e.job.
func alterAttrs(j *model.Job, req *api.AlterRequest) map[string]any {
	a := map[string]any{"id": j.ID}
	strs := map[string]*string{
		"Job_Name": req.Name, "Hold_Types": req.Hold, "Account_Name": req.Account, "project": req.Project,
		"Mail_Points": req.MailPoints, "Mail_Users": req.MailUsers, "Join_Path": req.Join, "Keep_Files": req.Keep,
		"Output_Path": req.Output, "Error_Path": req.Error, "Shell_Path_List": req.Shell,
		"group_list": req.GroupList, "depend": req.Depend,
	}
	for name, v := range strs {
		if v != nil {
			a[name] = *v
		}
	}
	if req.Priority != nil {
		a["Priority"] = *req.Priority
	}
	if req.Rerunable != nil {
		a["Rerunable"] = *req.Rerunable
	}
	if req.ExecTime != nil {
		a["Execution_Time"] = *req.ExecTime
	}
	if req.MaxRunSubjobs != nil {
		a["max_run_subjobs"] = *req.MaxRunSubjobs
	}
	if len(req.Resources) > 0 {
		a["Resource_List"] = req.Resources
	}
	return a
}

// applyAlterHookChanges merges a modifyjob hook's changes into the qalter
// request. Values are checked by the request's own validation afterwards.
func applyAlterHookChanges(req *api.AlterRequest, changes map[string]string) error {
	for _, k := range model.SortedKeys(changes) {
		v := changes[k]
		switch {
		case strings.HasPrefix(k, "Resource_List."):
			if req.Resources == nil {
				req.Resources = map[string]string{}
			}
			req.Resources[strings.TrimPrefix(k, "Resource_List.")] = v
		case k == "Job_Name":
			req.Name = &v
		case k == "Priority":
			n, err := strconv.Atoi(v)
			if err != nil {
				return model.Errorf(model.PBSEBadAttrVal, " Priority")
			}
			req.Priority = &n
		case k == "Rerunable":
			b, err := model.ParseBool(v)
			if err != nil {
				return model.Errorf(model.PBSEBadAttrVal, " Rerunable")
			}
			req.Rerunable = &b
		case k == "Hold_Types":
			req.Hold = &v
		case k == "Account_Name":
			req.Account = &v
		case k == "project":
			req.Project = &v
		case k == "Mail_Points":
			req.MailPoints = &v
		case k == "Mail_Users":
			req.MailUsers = &v
		default:
			return model.Errorf(model.PBSEBadAttrVal, " %s (not settable by a hook)", k)
		}
	}
	return nil
}
