// Package pbsattr names a job's attributes and writes their values as
// OpenPBS's qstat -f shows them. The commands (qstat -f, its JSON and DSV
// forms) and the server's web page both write a job from this one list,
// so they cannot disagree on names, order or values.
package pbsattr

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// CtimeLayout is C's ctime() without the newline: "Sat Nov 21 19:44:08 2026",
// the form PBS uses for times in qstat -f.
const CtimeLayout = "Mon Jan _2 15:04:05 2006"

// FormatCtime writes an epoch time in loc (the local zone when nil).
func FormatCtime(epoch int64, loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	return time.Unix(epoch, 0).In(loc).Format(CtimeLayout)
}

// Attr is one attribute as the status outputs show it: name, optional
// resource, value in display form. Every -f style output (text, dsv, json)
// is written from the same list, so they cannot disagree on order or
// values.
type Attr struct {
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

// Job lists a job's attributes in the server's definition order (the
// order of OpenPBS's qstat -f), leaving out the ones that are not set.
// Times are in ctime form.
func Job(j *model.Job, defs model.ResourceDefs, loc *time.Location) []Attr {
	var out []Attr
	add := func(name, value string) {
		if value != "" {
			out = append(out, Attr{Name: name, Value: value})
		}
	}
	addTime := func(name string, epoch int64) {
		if epoch != 0 {
			add(name, FormatCtime(epoch, loc))
		}
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	out = append(out, Attr{Name: "Job_Name", Value: j.Name, AsString: true})
	add("Job_Owner", j.Owner)
	for _, r := range model.SortedKeys(j.Used) {
		out = append(out, Attr{Name: "resources_used", Resource: r, Value: j.Used[r]})
	}
	add("job_state", j.State)
	add("queue", j.Queue)
	add("server", j.Server)
	if j.Account != "" {
		out = append(out, Attr{Name: "Account_Name", Value: j.Account, AsString: true})
	}
	add("Checkpoint", or(j.Checkpt, defaultCheckpoint))
	addTime("ctime", j.Ctime)
	add("depend", DependDisplay(j.Depend(), j.Server))
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
		out = append(out, Attr{Name: "Resource_List", Resource: r, Value: j.ResourceList[r]})
	}
	addTime("stime", j.Stime)
	if j.SessionID != 0 {
		add("session_id", strconv.Itoa(j.SessionID))
	}
	add("Shell_Path_List", j.Shell)
	add("stagein", j.Stagein())
	add("stageout", j.Stageout())
	add("substate", strconv.Itoa(j.Substate))
	add("umask", j.Umask())
	if len(j.Env) > 0 {
		out = append(out, Attr{Name: "Variable_List", Value: VariableList(j.Env), Env: j.Env})
	}
	add("comment", j.Comment)
	addTime("etime", j.Etime)
	out = append(out, estimateAttrs(j, defs, loc)...)
	if j.EstSoftWalltime() > 0 {
		out = append(out, Attr{Name: "estimated", Resource: "soft_walltime", Value: model.FormatDuration(j.EstSoftWalltime())})
	}
	add("run_count", strconv.Itoa(j.RunCount))
	if j.Exit != nil {
		add("Exit_status", strconv.Itoa(*j.Exit))
	}
	out = append(out, arrayAttrs(j)...)
	add("Submit_arguments", j.SubmitArgs)
	if j.Interactive() {
		add("interactive", model.FormatBool(true))
	}
	out = append(out, Attr{Name: "project", Value: or(j.Project, defaultProject), AsString: true})
	add("Submit_Host", j.SubmitHost)
	addTime("obittime", j.Obit())
	return out
}

// DependDisplay is the depend attribute as OpenPBS shows it: every job id
// qualified with its server, "afterok:12.srv@srv:13.srv@srv,before:...".
// on:N carries a count, not ids.
func DependDisplay(depend, server string) string {
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

// VariableList is Variable_List's text form: name=value pairs joined with
// commas, a comma inside a value escaped with a backslash as PBS stores it.
func VariableList(env []model.EnvVar) string {
	parts := make([]string, len(env))
	for i, e := range env {
		parts[i] = e.Name + "=" + strings.ReplaceAll(e.Value, ",", `\,`)
	}
	return strings.Join(parts, ",")
}

// arrayAttrs are the array attributes of qstat -f: a parent's array,
// array_state_count, array_indices_submitted, array_indices_remaining and
// max_run_subjobs; a subjob's array_id and array_index.
func arrayAttrs(j *model.Job) []Attr {
	switch {
	case j.IsArray():
		a := j.Array
		queued := a.Queued.Count()
		done := a.Done.Count()
		out := []Attr{
			{Name: "array", Value: "True"},
			{Name: "array_state_count", Value: fmt.Sprintf("Queued:%d Running:%d Exiting:0 Expired:%d", queued, a.Running(), done)},
			{Name: "array_indices_submitted", Value: a.Submitted()},
			{Name: "array_indices_remaining", Value: a.Indices(a.Queued)},
		}
		if a.MaxRun > 0 {
			out = append(out, Attr{Name: "max_run_subjobs", Value: fmt.Sprint(a.MaxRun)})
		}
		return out
	case j.IsSubjob():
		return []Attr{{Name: "array_id", Value: j.ArrayID()}, {Name: "array_index", Value: fmt.Sprint(j.ArrayIndex())}}
	}
	return nil
}

// estimateAttrs are a top job's estimated.exec_vnode and
// estimated.start_time.
func estimateAttrs(j *model.Job, defs model.ResourceDefs, loc *time.Location) []Attr {
	if j.EstStart() == 0 {
		return nil
	}
	var out []Attr
	if len(j.EstExec()) > 0 {
		out = append(out, Attr{Name: "estimated", Resource: "exec_vnode", Value: j.EstExecVnode(defs)})
	}
	out = append(out, Attr{Name: "estimated", Resource: "start_time", Value: FormatCtime(j.EstStart(), loc)})
	if j.TopJob() {
		// A job the scheduler holds resources for (backfill_depth), as
		// OpenPBS marks it.
		out = append(out, Attr{Name: "topjob", Value: model.FormatBool(true)})
	}
	return out
}
