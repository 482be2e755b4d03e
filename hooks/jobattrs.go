package hooks

import (
	"maps"

	"github.com/strata-hpc/strata/model"
)

// JobAttrs is the job as a hook sees it: the attribute names of
// `qstat -f -F json` (Job_Name, Resource_List, Variable_List...), plus
// PBS's hook-only names (id, euser, egroup). Values keep their JSON types
// for the program reading them: times are Unix seconds (qstat prints them
// as dates), counts are numbers, Rerunable is a boolean, Resource_List and
// resources_used are objects of the server's canonical strings, and
// Variable_List is an object of name to value. Unset attributes are left
// out, as `qstat -f` leaves them out.
func JobAttrs(j *model.Job, defs model.ResourceDefs) map[string]any {
	a := map[string]any{
		"Job_Name":  j.Name,
		"job_state": j.State,
		"substate":  j.Substate,
		"queue":     j.Queue,
		"Priority":  j.Priority,
		"Rerunable": j.Rerun,
		"run_count": j.RunCount,
	}
	str := func(name, v string) {
		if v != "" {
			a[name] = v
		}
	}
	num := func(name string, v int64) {
		if v != 0 {
			a[name] = v
		}
	}
	str("id", j.ID) // none yet in queuejob, as in PBS
	str("Job_Owner", j.Owner)
	str("euser", j.User)
	str("egroup", j.Group)
	str("server", j.Server)
	str("Account_Name", j.Account)
	str("project", j.Project)
	str("Checkpoint", j.Checkpt)
	str("Error_Path", j.Error)
	str("Output_Path", j.Output)
	str("Hold_Types", j.Hold)
	str("Join_Path", j.Join)
	str("Keep_Files", j.Keep)
	str("Mail_Points", j.Mail)
	str("Mail_Users", j.MailTo)
	str("Shell_Path_List", j.Shell)
	str("umask", j.Umask())
	str("comment", j.Comment)
	str("Submit_arguments", j.SubmitArgs)
	str("Submit_Host", j.SubmitHost)
	str("depend", j.Depend())
	str("group_list", j.GroupList())
	str("array_id", j.ArrayID())
	num("ctime", j.Ctime)
	num("qtime", j.Qtime)
	num("mtime", j.Mtime)
	num("etime", j.Etime)
	num("stime", j.Stime)
	num("obittime", j.Obit())
	num("Execution_Time", j.ExecTime())
	num("session_id", int64(j.SessionID))
	if j.ArrayID() != "" {
		a["array_index"] = j.ArrayIndex()
	}
	if j.Array != nil {
		a["array"] = true
	}
	if len(j.Exec) > 0 {
		a["exec_host"] = j.ExecHost()
		a["exec_vnode"] = j.ExecVnode(defs)
	}
	if j.Exit != nil {
		a["Exit_status"] = *j.Exit
	}
	if len(j.ResourceList) > 0 {
		a["Resource_List"] = maps.Clone(j.ResourceList)
	}
	if len(j.Used) > 0 {
		a["resources_used"] = maps.Clone(j.Used)
	}
	if len(j.Env) > 0 {
		vars := make(map[string]string, len(j.Env))
		for _, e := range j.Env {
			vars[e.Name] = e.Value
		}
		a["Variable_List"] = vars
	}
	return a
}
