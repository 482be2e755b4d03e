package api

import "github.com/strata-hpc/strata/model"

// The stored job (model.Job) is the FSM's row and Raft payload. What other
// parties see of it are views of their own, each built in one place, so
// that what a party receives is decided by a type rather than by fields
// blanked in a copy.

// JobStatus is a user's view of a job (qstat, qselect, tracejob, qsub -W
// block): the stored job without the script and the submission token,
// which only the server and the job's agent hold (a token would also let
// its holder replay the submission and learn the job). The stored job is
// shared, not copied: views are read only.
//
// The JSON is the stored job's without "script" and "token": the two
// fields below shadow the embedded ones (encoding/json takes the
// shallower field) and are always empty, so they are omitted.
type JobStatus struct {
	*model.Job
	Script            string `json:"script,omitempty"`
	Token             string `json:"token,omitempty"`
	InteractiveCookie string `json:"interactive_cookie,omitempty"`
	// Fairshare is the queued job's fairshare position when fair_share
	// orders jobs (qstat -f fairshare_position): computed, never stored.
	Fairshare string `json:"fairshare_position,omitempty"`
}

// NewJobStatus is the one place a user's view of a job is made.
func NewJobStatus(j *model.Job) *JobStatus { return &JobStatus{Job: j} }

// WorkItem is the agent's view of a job it should run as mother superior
// (WorkResponse): everything it runs the job with (script, environment,
// exec_vnode, identity, signals, kill request) and what its hooks are
// given. The submission token is left out: it lets its holder replay the
// submission, and neither the agent nor its hooks need it. It is its own
// type so that the agent's contract is decided here (the agent unwraps it
// at one place, mom/work.go) and can narrow without touching the store or
// qstat. The token field shadows the embedded one, as in JobStatus.
type WorkItem struct {
	*model.Job
	Token string `json:"token,omitempty"`
}

// NewWorkItem is the one place an agent's view of a job is made.
func NewWorkItem(j *model.Job) *WorkItem { return &WorkItem{Job: j} }
