// Package api holds Strata's wire protocol: the request and response types of
// the versioned HTTP/JSON API and a client for it. Local commands reach the
// server over its Unix socket (identified by peer credentials); agents reach
// it over TCP with mutual TLS (agent certificates). docs/api.md describes every route.
package api

import "github.com/strata-hpc/strata/model"

// Version is the API version prefix of every route.
const Version = "/v1"

// PBSVersion is what --version and pbs_version report.
const PBSVersion = "strata-0.1.0"

// Error is the body of every non-2xx reply.
type Error = model.PBSError

// SubmitRequest carries a new job. The server fills in everything that
// depends on identity (owner, uid, groups) from the authenticated peer; the
// client never names the owner.
type SubmitRequest struct {
	// Token makes retries idempotent: a second request with the same token
	// returns the first job's id instead of creating another job.
	Token string `json:"token"`
	Name  string `json:"name,omitempty"`
	Queue string `json:"queue,omitempty"`
	// Resources are the -l entries as name -> value ("select", "place",
	// "walltime", "ncpus", ...), not yet normalized.
	Resources  map[string]string `json:"resources,omitempty"`
	Output     string            `json:"output,omitempty"` // -o, absolute, may be host:path
	Error      string            `json:"error,omitempty"`  // -e
	Join       string            `json:"join,omitempty"`   // -j
	Keep       string            `json:"keep,omitempty"`   // -k
	Hold       string            `json:"hold,omitempty"`   // -h gives "u"
	Priority   int               `json:"priority,omitempty"`
	Rerunable  *bool             `json:"rerunable,omitempty"`
	Shell      string            `json:"shell,omitempty"`
	Account    string            `json:"account,omitempty"`
	Project    string            `json:"project,omitempty"`
	MailPoints string            `json:"mail_points,omitempty"`
	MailUsers  string            `json:"mail_users,omitempty"`
	Env        []model.EnvVar    `json:"env"` // PBS_O_* and -v/-V variables
	Script     string            `json:"script,omitempty"`
	Argv       []string          `json:"argv,omitempty"`
	SubmitArgs string            `json:"submit_args,omitempty"`
	SubmitHost string            `json:"submit_host,omitempty"`
	Workdir    string            `json:"workdir"` // PBS_O_WORKDIR
	// ExecTime is -a as epoch seconds (Execution_Time); the job waits in
	// W until then.
	ExecTime int64 `json:"execution_time,omitempty"`
	// Depend is -W depend (type:id[:id][,type:id...]); short ids are
	// expanded by the server.
	Depend string `json:"depend,omitempty"`
	// GroupList is -W group_list.
	GroupList string `json:"group_list,omitempty"`
	// Umask is -W umask (octal digits).
	Umask string `json:"umask,omitempty"`
	// Stagein and Stageout are -W stagein and -W stageout
	// (execution_path@host:storage_path[,...]).
	Stagein  string `json:"stagein,omitempty"`
	Stageout string `json:"stageout,omitempty"`
	// CreateResvFromJob is -W create_resv_from_job=true.
	CreateResvFromJob bool `json:"create_resv_from_job,omitempty"`
	// ArrayIndices is -J X-Y[:Z][%N]: the job is an array.
	ArrayIndices string `json:"array_indices,omitempty"`
	// Interactive is qsub -I's listening address (host:port) and
	// InteractiveCookie the secret the agent must present there.
	Interactive       string `json:"interactive,omitempty"`
	InteractiveCookie string `json:"interactive_cookie,omitempty"`
	// DefaultArgs is the server's default_qsub_arguments as qsub applied
	// them. When set and no longer the server's value, the server refuses
	// with model.PBSEStaleDefaults carrying its value, and qsub rebuilds
	// the request: qsub learns the defaults without a round trip of its
	// own. Nil (other clients) skips the check.
	DefaultArgs *string `json:"default_qsub_arguments,omitempty"`
}

// SubmitResponse returns the new job's id.
type SubmitResponse struct {
	JobID string `json:"job_id"`
}

// ServerInfo describes the server a client talks to.
type ServerInfo struct {
	Name       string             `json:"server_name"`
	Version    string             `json:"pbs_version"`
	Leader     bool               `json:"leader"`
	State      string             `json:"server_state"`
	Defs       model.ResourceDefs `json:"resources"`
	History    bool               `json:"job_history_enable"`
	DefaultQ   string             `json:"default_queue"`
	Queues     []QueueInfo        `json:"queues"`
	TotalJobs  int                `json:"total_jobs"`
	StateCount map[string]int     `json:"state_count"`
	// Comment is the server's comment attribute (shown above qstat's
	// tables).
	Comment string `json:"comment,omitempty"`
	// DefaultQsubArguments are options qsub applies below the script's
	// directives and the command line (default_qsub_arguments).
	DefaultQsubArguments string `json:"default_qsub_arguments,omitempty"`
	// MaxJobSequenceID widens qstat's Job id column above 9,999,999.
	MaxJobSequenceID int64 `json:"max_job_sequence_id,omitempty"`
	// Provision is the provisioning insight (qstat -Bf), on GET /server
	// only.
	Provision *ServerProvision `json:"provisioning,omitempty"`
	// Raft is this server's place in a multi-server cluster (GET /server
	// only; absent for a single server).
	Raft *RaftInfo `json:"raft,omitempty"`
}

// RaftInfo says which server answered and which leads.
type RaftInfo struct {
	// ID is the answering server's Raft id, State its role: "leader",
	// "follower" or "candidate".
	ID    string `json:"id"`
	State string `json:"state"`
	// Leader is the leader's Raft id ("" while none is known).
	Leader string `json:"leader"`
	// Voters is the number of voting servers.
	Voters int `json:"voters"`
	// Applied is the index of the last log entry in this server's state.
	Applied uint64 `json:"applied"`
}

// QueueInfo is a queue's status.
type QueueInfo struct {
	Name     string `json:"name"`
	Type     string `json:"queue_type"`
	Priority int    `json:"priority"`
	Enabled  bool   `json:"enabled"`
	Started  bool   `json:"started"`
	// TotalJobs and StateCount count the queue's unfinished jobs by state
	// letter (qstat -Q, -q and -B).
	TotalJobs  int            `json:"total_jobs"`
	StateCount map[string]int `json:"state_count,omitempty"`
}

// JobsResponse is the reply to a job status query.
type JobsResponse struct {
	Server ServerInfo   `json:"server"`
	Jobs   []*JobStatus `json:"jobs"`
}

// NodesResponse is the reply to a vnode status query.
type NodesResponse struct {
	Server ServerInfo     `json:"server"`
	Vnodes []*model.Vnode `json:"vnodes"`
}

// DeleteRequest asks to delete jobs (qdel).
type DeleteRequest struct {
	Force bool `json:"force,omitempty"` // -W force
	Purge bool `json:"purge,omitempty"` // -x: also remove history
}

// --- Agent protocol -------------------------------------------------------

// VnodeSpec is what an agent advertises for one vnode.
type VnodeSpec struct {
	Name       string            `json:"name"`
	Resources  map[string]string `json:"resources_available"`
	Priority   int               `json:"priority,omitempty"`
	Sharing    string            `json:"sharing,omitempty"`
	ProvEnable bool              `json:"provision_enable,omitempty"`
	CurrentAOE string            `json:"current_aoe,omitempty"`
}

// RegisterRequest is sent by an agent when it starts and whenever the server
// asks it to register again (for instance after the server lost it).
type RegisterRequest struct {
	Host    string      `json:"host"`
	BootID  string      `json:"boot_id"`
	Version string      `json:"pbs_version"`
	Pcpus   int         `json:"pcpus"`
	Vnodes  []VnodeSpec `json:"vnodes"`
	// Jobs the agent still supervises (it reattached to them after a
	// restart); the server reports as lost any job it thinks runs on this
	// host as mother superior that is not in this list.
	Jobs []string `json:"jobs"`
	// ImageAOE is the AOE the agent detected on its host (aoe_file); nil
	// when it is not configured to detect one (provisioning).
	ImageAOE *string `json:"image_aoe,omitempty"`
}

// RegisterResponse tells the agent how to behave.
type RegisterResponse struct {
	ServerName        string `json:"server_name"`
	HeartbeatInterval int    `json:"heartbeat_interval_ms"`
	// HookVersion is the configuration's hook_version: an agent whose
	// stored hooks have another version fetches GET /v1/agent/hooks.
	HookVersion uint64 `json:"hook_version"`
}

// HeartbeatRequest keeps a host up. Heartbeats never enter the Raft log.
type HeartbeatRequest struct {
	Host   string `json:"host"`
	BootID string `json:"boot_id"`
}

// WorkResponse lists the jobs an agent should be running as mother superior,
// and the state index to pass back to wait for the next change.
type WorkResponse struct {
	Index uint64      `json:"index"`
	Jobs  []*WorkItem `json:"jobs"`
	// HookVersion is the hook_version of the same state as Jobs: the agent
	// fetches the hooks before it starts any of these jobs when its own
	// version differs.
	HookVersion uint64 `json:"hook_version"`
	// Provision is the host's running provisioning operation when its
	// hook runs on the agent (api/provision.go).
	Provision *ProvisionWork `json:"provision,omitempty"`
}

// Job event kinds an agent reports (model.JobEvent*; the agent's names).
const (
	EventStarted = model.JobEventStarted
	EventEnded   = model.JobEventEnded
	EventFailed  = model.JobEventFailed
	// EventStageinFailed: the job's stage-in failed; it waits (W) and
	// is tried again later, as PBS does.
	EventStageinFailed = model.JobEventStageinFailed
	EventUsage         = model.JobEventUsage
)

// JobEvent is model's: the agent's report is the FSM's command entry.
type JobEvent = model.JobEvent

// EventsRequest batches job events; the server commits one Raft entry per
// batch.
type EventsRequest struct {
	Host   string     `json:"host"`
	Events []JobEvent `json:"events"`
}
