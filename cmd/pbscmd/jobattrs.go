package pbscmd

import (
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// attr is one attribute as the status outputs show it: name, optional
// resource, value in display form. Every -f style output (text, dsv, json)
// is written from the same list, so they cannot disagree on order or
// values.
type attr struct {
	Name     string
	Resource string
	Value    string
	// AsString keeps the value a JSON string even if it reads as a number
	// (Job_Name "123" stays "123").
	AsString bool
	// Env is set for Variable_List, which JSON shows as an object.
	Env []model.EnvVar
}

// Defaults the server applies to unset job attributes; shown so the
// output reads as OpenPBS's does even when the server left a field empty.
const (
	defaultCheckpoint = "u"
	defaultHold       = "n"
	defaultJoin       = "n"
	defaultKeep       = "n"
	defaultMailPoints = "a"
	defaultProject    = "_pbs_project_default"
)

// jobAttrs lists a job's attributes in the server's definition order (the
// order of OpenPBS's qstat -f), leaving out the ones that are not set.
// Times are in ctime form.
func jobAttrs(j *model.Job, defs model.ResourceDefs, loc *time.Location) []attr {
	var out []attr
	add := func(name, value string) {
		if value != "" {
			out = append(out, attr{Name: name, Value: value})
		}
	}
	addTime := func(name string, epoch int64) {
		if epoch != 0 {
			add(name, formatCtime(epoch, loc))
		}
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	out = append(out, attr{Name: "Job_Name", Value: j.Name, AsString: true})
	add("Job_Owner", j.Owner)
	for _, r := range model.SortedKeys(j.Used) {
		out = append(out, attr{Name: "resources_used", Resource: r, Value: j.Used[r]})
	}
	add("job_state", j.State)
	add("queue", j.Queue)
	add("server", j.Server)
	if j.Account != "" {
		out = append(out, attr{Name: "Account_Name", Value: j.Account, AsString: true})
	}
	add("Checkpoint", or(j.Checkpt, defaultCheckpoint))
	addTime("ctime", j.Ctime)
	add("depend", dependDisplay(j.Depend, j.Server))
	add("Error_Path", j.Error)
	if len(j.Exec) > 0 {
		add("exec_host", j.ExecHost())
		add("exec_vnode", j.ExecVnode(defs))
	}
	add("Hold_Types", or(j.Hold, defaultHold))
	add("Join_Path", or(j.Join, defaultJoin))
	add("Keep_Files", or(j.Keep, defaultKeep))
	add("Mail_Points", or(j.Mail, defaultMailPoints))
	add("Mail_Users", j.MailTo)
	addTime("mtime", j.Mtime)
	add("Output_Path", j.Output)
	add("Priority", strconv.Itoa(j.Priority))
	addTime("qtime", j.Qtime)
	add("Rerunable", model.FormatBool(j.Rerun))
	for _, r := range model.SortedKeys(j.ResourceList) {
		out = append(out, attr{Name: "Resource_List", Resource: r, Value: j.ResourceList[r]})
	}
	addTime("stime", j.Stime)
	if j.SessionID != 0 {
		add("session_id", strconv.Itoa(j.SessionID))
	}
	add("Shell_Path_List", j.Shell)
	add("stagein", j.Stagein)
	add("stageout", j.Stageout)
	add("substate", strconv.Itoa(j.Substate))
	add("umask", j.Umask)
	if len(j.Env) > 0 {
		out = append(out, attr{Name: "Variable_List", Value: variableList(j.Env), Env: j.Env})
	}
	add("comment", j.Comment)
	addTime("etime", j.Etime)
	out = append(out, estimateAttrs(j, defs, loc)...)
	if j.EstSoftWalltime > 0 {
		out = append(out, attr{Name: "estimated", Resource: "soft_walltime", Value: model.FormatDuration(j.EstSoftWalltime)})
	}
	add("run_count", strconv.Itoa(j.RunCount))
	if j.Exit != nil {
		add("Exit_status", strconv.Itoa(*j.Exit))
	}
	out = append(out, arrayAttrs(j)...)
	add("Submit_arguments", j.SubmitArgs)
	if j.Interactive {
		add("interactive", model.FormatBool(true))
	}
	out = append(out, attr{Name: "project", Value: or(j.Project, defaultProject), AsString: true})
	add("Submit_Host", j.SubmitHost)
	addTime("obittime", j.Obit)
	return out
}

// dependDisplay is the depend attribute as OpenPBS shows it: every job id
// qualified with its server, "afterok:12.srv@srv:13.srv@srv,before:...".
// on:N carries a count, not ids.
func dependDisplay(depend, server string) string {
	if depend == "" || server == "" {
		return depend
	}
	groups := strings.Split(depend, ",")
	for i, g := range groups {
		fields := strings.Split(g, ":")
		if fields[0] == "on" {
			continue
		}
		for k := 1; k < len(fields); k++ {
			if !strings.Contains(fields[k], "@") {
				fields[k] += "@" + server
			}
		}
		groups[i] = strings.Join(fields, ":")
	}
	return strings.Join(groups, ",")
}

// variableList is Variable_List's text form: name=value pairs joined with
// commas, a comma inside a value escaped with a backslash as PBS stores it.
func variableList(env []model.EnvVar) string {
	parts := make([]string, len(env))
	for i, e := range env {
		parts[i] = e.Name + "=" + strings.ReplaceAll(e.Value, ",", `\,`)
	}
	return strings.Join(parts, ",")
}
