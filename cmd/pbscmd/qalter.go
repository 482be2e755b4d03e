package pbscmd

import (
	"context"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const qalterUsage = `usage: qalter [-a date_time] [-A account_string] [-c interval] [-e path]
	[-h hold_list] [-j y|n] [-k keep] [-l resource_list] [-m mail_options]
	[-M user_list] [-N jobname] [-o path] [-p priority] [-P project] [-r y|n] [-S path]
	[-u user_list] [-W dependency_list] job_identifier...
       qalter --version
`

const qalterSpec optSpec = "a:A:c:e:h:j:k:l:m:M:N:o:p:P:r:S:u:W:"

// Qalter runs qalter: change attributes of each job, all or nothing per
// job.
func Qalter(ctx context.Context, env *Env, args []string) int {
	if printVersion(env, args) {
		return 0
	}
	req, operands, err := parseQalter(env, args)
	if err != nil {
		return reportUsage(env, "qalter", qalterUsage, err)
	}
	return forEachJob(ctx, env, "qalter", operands, func(s *session, id string) error {
		if req.badW != nil {
			// The server checks the job before its attributes.
			resp, err := s.client.Jobs(ctx, []string{id}, true)
			if err != nil {
				return err
			}
			if len(resp.Jobs) == 0 {
				return model.Err(model.PBSEUnknownJobID)
			}
			return req.badW
		}
		return s.client.Alter(ctx, id, &req.AlterRequest)
	})
}

// qalterRequest is a parsed qalter: the change, or the refusal a -W
// attribute that cannot be set earns for every job.
type qalterRequest struct {
	api.AlterRequest
	badW *model.PBSError
}

// readOnlyJobAttrs are job attributes that exist but no qalter may set:
// PBS refuses them with PBSE_ATTRRO (exit 155) naming the attribute.
var readOnlyJobAttrs = map[string]bool{
	"job_state": true, "substate": true, "session_id": true, "exec_host": true,
	"exec_vnode": true, "ctime": true, "mtime": true, "qtime": true, "etime": true,
	"stime": true, "obittime": true, "Job_Owner": true, "server": true, "queue": true,
	"resources_used": true, "Exit_status": true, "run_count": true,
	"Submit_arguments": true, "Submit_Host": true, "euser": true, "egroup": true,
	"hashname": true, "jobdir": true, "array_id": true, "array_index": true,
}

// settableJobAttrs are the other job attributes OpenPBS knows; those qalter
// cannot change yet here are refused as an illegal -W value.
var settableJobAttrs = map[string]bool{
	"Job_Name": true, "Account_Name": true, "Checkpoint": true, "Error_Path": true,
	"Output_Path": true, "Hold_Types": true, "Join_Path": true, "Keep_Files": true,
	"Mail_Points": true, "Mail_Users": true, "Priority": true, "Rerunable": true,
	"Shell_Path_List": true, "User_List": true, "Execution_Time": true,
	"Resource_List": true, "Variable_List": true, "project": true, "sandbox": true,
	"stagein": true, "stageout": true, "umask": true, "max_run_subjobs": true,
	"interactive": true, "block": true, "comment": true, "run_version": true,
}

func parseQalter(env *Env, args []string) (*qalterRequest, []string, error) {
	req := &qalterRequest{}
	var operands []string
	err := parseOptions("qalter", qalterSpec, "lW", args, func(c *options, g getoptArgs) error {
		operands = g.Operands
		str := func(f byte) *string {
			if !c.IsSet(flagName(f)) {
				return nil
			}
			v := c.String(flagName(f))
			return &v
		}
		for _, f := range []byte("NjkmMAPeoSp") {
			if v := str(f); v != nil {
				if err := checkQsubValue(f, *v); err != nil {
					return err
				}
			}
		}
		req.Name, req.Join, req.Keep = str('N'), str('j'), str('k')
		req.MailPoints, req.MailUsers = str('m'), str('M')
		req.Account, req.Project, req.Shell = str('A'), str('P'), str('S')
		req.Output, req.Error = str('o'), str('e')
		if v := str('p'); v != nil {
			n, _ := strconv.Atoi(*v)
			req.Priority = &n
		}
		if v := str('r'); v != nil {
			if *v != "y" && *v != "n" {
				return errIllegalOpt('r')
			}
			b := *v == "y"
			req.Rerunable = &b
		}
		if v := str('h'); v != nil {
			if !validHoldList(*v) {
				return errIllegalOpt('h')
			}
			req.Hold = v
		}
		if v := str('a'); v != nil {
			t, ok := parseDateTime(*v, env.Now(), env.Loc)
			if !ok {
				return errIllegalOpt('a')
			}
			req.ExecTime = &t
		}
		if c.IsSet("l") {
			var res resourceList
			for _, v := range c.StringSlice("l") {
				if err := parseResourceArg(v, &res); err != nil {
					return err
				}
			}
			req.Resources = res.asMap()
		}
		for _, w := range c.StringSlice("W") {
			attrs, err := parseWAttrs(w)
			if err != nil {
				return err
			}
			for _, a := range attrs {
				switch a.name {
				case "depend":
					v := a.value
					req.Depend = &v
				case "group_list":
					v := a.value
					req.GroupList = &v
				case "stagein", "stageout":
					if _, err := model.ParseStageList(a.value); err != nil {
						return errIllegalOpt('W')
					}
					v := a.value
					if a.name == "stagein" {
						req.Stagein = &v
					} else {
						req.Stageout = &v
					}
				case "max_run_subjobs":
					n, err := strconv.ParseInt(a.value, 10, 64)
					if err != nil || n < 0 {
						req.badW = model.Errorf(model.PBSEBadAttrVal, " %s", a.name)
						continue
					}
					req.MaxRunSubjobs = &n
				default:
					name, _, _ := strings.Cut(a.name, ".")
					switch {
					case readOnlyJobAttrs[name]:
						req.badW = model.Errorf(model.PBSEAttrRO, " %s", a.name)
					case !settableJobAttrs[name]:
						req.badW = model.Errorf(model.PBSENoAttr, " %s", a.name)
					default:
						return errIllegalOpt('W')
					}
				}
			}
		}
		return nil
	})
	if err == nil && len(operands) == 0 {
		err = &cmdError{Code: 2, Usage: true}
	}
	return req, operands, err
}

// wAttr is one -W name=value.
type wAttr struct{ name, value string }

// parseWAttrs splits a -W value "a=x,b=y" (commas inside a depend list
// belong to it: "depend=afterok:1,afterany:2" is one attribute, as PBS
// reads it).
func parseWAttrs(w string) ([]wAttr, error) {
	var out []wAttr
	parts, err := splitQuotedList(w)
	if err != nil {
		return nil, errIllegalOpt('W')
	}
	for _, p := range parts {
		name, value, ok := cutAttr(p)
		if !ok {
			// Lists whose entries are separated by commas (depend,
			// stagein, stageout) continue in the next part.
			if len(out) > 0 && listWAttr[out[len(out)-1].name] {
				out[len(out)-1].value += "," + p
				continue
			}
			return nil, errIllegalOpt('W')
		}
		out = append(out, wAttr{name, value})
	}
	return out, nil
}

// listWAttr are the -W attributes whose value is a comma-separated list.
var listWAttr = map[string]bool{"depend": true, "stagein": true, "stageout": true}

// cutAttr splits "name=value" when name looks like an attribute name.
func cutAttr(p string) (string, string, bool) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '=' {
			return p[:i], p[i+1:], i > 0 && p[i+1:] != ""
		}
		if !(c >= 'a' && c <= 'z' || c == '_' || c >= 'A' && c <= 'Z') {
			return "", "", false
		}
	}
	return "", "", false
}
