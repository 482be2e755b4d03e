package model

import "time"

// The plan of one scheduling cycle: what scheduler.Schedule decides, what
// the server commits as one ApplyPlan entry and what the FSM applies. One
// definition serves all three; the JSON tags are the Raft log's encoding,
// so they must not change.

// RunDecision runs one job on the given chunks.
type RunDecision struct {
	JobID string `json:"job_id"`
	// Exec lists one ExecChunk per chunk copy, in select order. Under
	// place=exclhost the other vnodes of each host the job touches are added,
	// with no amounts, as extra shares of the job's first chunk on that host,
	// so that every vnode the job holds appears in Exec.
	Exec []ExecChunk `json:"exec"`
	// Exclusive is set when the job holds every vnode of Exec exclusively
	// (place=excl or exclhost): the FSM records it in Vnode.ExclusiveJob.
	Exclusive bool `json:"exclusive,omitempty"`
}

// JobComment sets the comment of a job that did not run. NeverRun marks
// the job as impossible to run with the current vnodes (the FSM records
// the snapshot's Epoch).
type JobComment struct {
	JobID    string `json:"job_id"`
	Comment  string `json:"comment"`
	NeverRun bool   `json:"never_run,omitempty"`
}

// JobEstimate sets (Top) or clears (!Top, zero Start and Exec) a queued
// job's estimated.start_time, estimated.exec_vnode and topjob. A plan
// lists only changes.
type JobEstimate struct {
	JobID string      `json:"job_id"`
	Start int64       `json:"start,omitempty"`
	Exec  []ExecChunk `json:"exec,omitempty"`
	Top   bool        `json:"top,omitempty"`
}

// Note is the scheduler log line PBS writes for a top job.
func (e JobEstimate) Note() string {
	return "Job is a top job and will run at " + time.Unix(e.Start, 0).Format("Mon Jan _2 15:04:05 2006")
}

// ResvDecision confirms (with the vnodes chosen) or denies an unconfirmed
// reservation.
type ResvDecision struct {
	ID      string      `json:"id"`
	Confirm bool        `json:"confirm"`
	Nodes   []ExecChunk `json:"nodes,omitempty"`
	Reason  string      `json:"reason,omitempty"`
}

// SoftWalltime records a running job's extended soft walltime
// (estimated.soft_walltime, seconds); see ExtendSoftWalltime.
type SoftWalltime struct {
	JobID   string `json:"job_id"`
	Seconds int64  `json:"seconds"`
}
