package raftstore

import "github.com/strata-hpc/strata/model"

// Commands of the job and vnode operations (qhold, qrls, qalter, qsig,
// qmove, qrerun, qrun, the Execution_Time release and pbsnodes -o/-r/-C).
// Permissions are checked by the server before a command is proposed; the
// FSM re-checks every rule that depends on the job's state, because the
// state may have moved between the server's read and the commit.

// HoldJob adds hold types (any of "uos") to a job.
type HoldJob struct {
	JobID     string `json:"job_id"`
	Holds     string `json:"holds"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

// ReleaseJob removes hold types from a job; a job left without holds goes
// to Q, or W while its Execution_Time is in the future.
type ReleaseJob struct {
	JobID     string `json:"job_id"`
	Holds     string `json:"holds"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

// AlterJob changes attributes of a job (qalter). Nil fields are left alone.
// The server has validated the values and computed the new Resource_List,
// select and place; the FSM applies all of it or nothing.
type AlterJob struct {
	JobID     string `json:"job_id"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`

	Name       *string     `json:"name,omitempty"`
	Priority   *int        `json:"priority,omitempty"`
	Hold       *string     `json:"hold,omitempty"`
	Rerun      *bool       `json:"rerunable,omitempty"`
	ExecTime   *int64      `json:"execution_time,omitempty"`
	Account    *string     `json:"account,omitempty"`
	Project    *string     `json:"project,omitempty"`
	MailPoints *string     `json:"mail_points,omitempty"`
	MailUsers  *string     `json:"mail_users,omitempty"`
	Join       *string     `json:"join,omitempty"`
	Keep       *string     `json:"keep,omitempty"`
	Output     *string     `json:"output,omitempty"`
	Error      *string     `json:"error,omitempty"`
	Shell      *string     `json:"shell,omitempty"`
	GroupList  *string     `json:"group_list,omitempty"`
	Depend     *string     `json:"depend,omitempty"`
	Deps       []model.Dep `json:"deps,omitempty"` // with Depend
	Resources  *AlteredRes `json:"resources,omitempty"`
	// Stagein and Stageout are the new staging lists, normalized.
	Stagein  *string `json:"stagein,omitempty"`
	Stageout *string `json:"stageout,omitempty"`
	// MaxRunSubjobs changes an array's max_run_subjobs (0: no limit).
	MaxRunSubjobs *int64 `json:"max_run_subjobs,omitempty"`
}

// AlteredRes is a job's new resource request, complete.
type AlteredRes struct {
	List   map[string]string `json:"list"`
	Select model.Select      `json:"select"`
	Place  model.Place       `json:"place"`
}

// SignalJob records a signal request (qsig) for the job's agent to deliver.
// "suspend" and "resume" also change the job's state and give its cpus back
// to the scheduler or take them again.
type SignalJob struct {
	JobID     string `json:"job_id"`
	Signal    string `json:"signal"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

// MoveJob moves a job that has not started to another queue (qmove).
type MoveJob struct {
	JobID     string `json:"job_id"`
	Queue     string `json:"queue"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

// RerunJob requeues a running rerunnable job (qrerun): its agent kills it
// and the end becomes a requeue. Force requeues at once.
type RerunJob struct {
	JobID     string `json:"job_id"`
	Force     bool   `json:"force,omitempty"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

// RunJobNow is an operator's run decision (qrun), validated against the
// state exactly as a scheduler decision is.
type RunJobNow struct {
	Run       model.RunDecision `json:"run"`
	Requestor string            `json:"requestor"`
	Now       int64             `json:"now"`
}

// ReleaseWaiting moves jobs whose Execution_Time has come from W to Q.
type ReleaseWaiting struct {
	JobIDs []string `json:"job_ids"`
	Now    int64    `json:"now"`
}

// MarkVnodes sets or clears the offline state and comment of vnodes
// (pbsnodes -o/-r/-C).
type MarkVnodes struct {
	Vnodes  []string `json:"vnodes"`
	Offline *bool    `json:"offline,omitempty"`
	Comment *string  `json:"comment,omitempty"`
	Now     int64    `json:"now"`
}

func (HoldJob) Type() MessageType        { return HoldJobType }
func (ReleaseJob) Type() MessageType     { return ReleaseJobType }
func (AlterJob) Type() MessageType       { return AlterJobType }
func (SignalJob) Type() MessageType      { return SignalJobType }
func (MoveJob) Type() MessageType        { return MoveJobType }
func (RerunJob) Type() MessageType       { return RerunJobType }
func (RunJobNow) Type() MessageType      { return RunJobNowType }
func (ReleaseWaiting) Type() MessageType { return ReleaseWaitingType }
func (MarkVnodes) Type() MessageType     { return MarkVnodesType }
