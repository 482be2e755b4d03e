package hooks

import (
	"encoding/json"

	"github.com/strata-hpc/strata/model"
)

// Event is what a hook receives as JSON on stdin. Job is converted to
// PBS attribute names (JobAttrs) when the event is encoded, so every hook,
// shell or Python, reads the names `qstat -f -F json` shows.
type Event struct {
	Type string
	Hook string
	// Requestor is the user (or daemon: pbs_mom, Scheduler) behind the
	// event; RequestorHost the host it came from, as PBS splits them.
	Requestor     string
	RequestorHost string
	// Job is the job the event is about.
	Job *model.Job
	// Request, set for modifyjob, is the qalter request under PBS
	// attribute names: the event's "job" is then the request (only what
	// it changes, as PBS's modifyjob e.job) and "job_o" the job as it is.
	Request map[string]any
	// Vnodes is vnode_list: the job's vnodes (runjob, execjob_*) or the
	// vnode being provisioned.
	Vnodes []string
	// SrcQueue is set for movejob: the queue the job leaves (Job.Queue is
	// already the destination, as in PBS's movejob event).
	SrcQueue string
	// Vnode and AOE are set for provision events.
	Vnode string
	AOE   string
	// Config is the hook's configuration file (application/x-config).
	Config string
	// Defs types the job's resources (Resource_List values become
	// pbs.duration, pbs.size, int... in the pbs module) and formats
	// exec_vnode. Nil where they are not known (agents).
	Defs model.ResourceDefs
	// Server is what pbs.server() reads: ServerView's result, nil where
	// the caller has no server state (agents give only the name).
	Server *ServerView
	// Resv is the reservation of resvsub (the request) and modifyresv
	// (the pbs_ralter request: id and what it changes), under PBS names
	// (ResvAttrs); ResvO is modifyresv's reservation as it is.
	Resv  map[string]any
	ResvO map[string]any
}

// wireEvent is the JSON form of Event.
type wireEvent struct {
	Type          string            `json:"type"`
	Hook          string            `json:"hook_name"`
	Requestor     string            `json:"requestor,omitempty"`
	RequestorHost string            `json:"requestor_host,omitempty"`
	Job           map[string]any    `json:"job,omitempty"`
	JobO          map[string]any    `json:"job_o,omitempty"`
	Vnodes        []string          `json:"vnode_list,omitempty"`
	SrcQueue      string            `json:"src_queue,omitempty"`
	Vnode         string            `json:"vnode,omitempty"`
	AOE           string            `json:"aoe,omitempty"`
	Config        string            `json:"config,omitempty"`
	ResourceTypes map[string]string `json:"resource_types,omitempty"`
	Server        *ServerView       `json:"server,omitempty"`
	Resv          map[string]any    `json:"resv,omitempty"`
	ResvO         map[string]any    `json:"resv_o,omitempty"`
}

// MarshalJSON writes the event with the job under its PBS attribute names.
func (ev Event) MarshalJSON() ([]byte, error) {
	w := wireEvent{
		Type: ev.Type, Hook: ev.Hook, Requestor: ev.Requestor, RequestorHost: ev.RequestorHost,
		Vnodes: ev.Vnodes, SrcQueue: ev.SrcQueue, Vnode: ev.Vnode, AOE: ev.AOE,
		Config: ev.Config, Server: ev.Server, Resv: ev.Resv, ResvO: ev.ResvO,
	}
	if ev.Job != nil {
		w.Job = JobAttrs(ev.Job, ev.Defs)
	}
	if ev.Request != nil {
		w.Job, w.JobO = ev.Request, w.Job
	}
	if len(ev.Defs) > 0 {
		w.ResourceTypes = make(map[string]string, len(ev.Defs))
		for name, d := range ev.Defs {
			w.ResourceTypes[name] = string(d.Type)
		}
	}
	return json.Marshal(w)
}
