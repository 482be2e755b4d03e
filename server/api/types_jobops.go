package api

// Requests of the job and vnode operations. Each is answered with an empty
// object on success and a PBS error otherwise.

// HoldRequest is qhold's and qrls's body: the hold types ("u", "o", "s" in
// any mix).
type HoldRequest struct {
	Holds string `json:"holds"`
}

// AlterRequest is qalter's body. Unset fields are left alone; Resources are
// -l entries merged over the job's request.
type AlterRequest struct {
	Name       *string           `json:"name,omitempty"`
	Priority   *int              `json:"priority,omitempty"`
	Hold       *string           `json:"hold,omitempty"`
	Rerunable  *bool             `json:"rerunable,omitempty"`
	ExecTime   *int64            `json:"execution_time,omitempty"`
	Account    *string           `json:"account,omitempty"`
	Project    *string           `json:"project,omitempty"`
	MailPoints *string           `json:"mail_points,omitempty"`
	MailUsers  *string           `json:"mail_users,omitempty"`
	Join       *string           `json:"join,omitempty"`
	Keep       *string           `json:"keep,omitempty"`
	Output     *string           `json:"output,omitempty"`
	Error      *string           `json:"error,omitempty"`
	Shell      *string           `json:"shell,omitempty"`
	GroupList  *string           `json:"group_list,omitempty"`
	Depend     *string           `json:"depend,omitempty"`
	Resources  map[string]string `json:"resources,omitempty"`
	// Stagein and Stageout replace the staging lists (qalter -W
	// stagein=..., -W stageout=...) of a job that has not started.
	Stagein  *string `json:"stagein,omitempty"`
	Stageout *string `json:"stageout,omitempty"`
	// MaxRunSubjobs is an array's max_run_subjobs (qalter -W
	// max_run_subjobs=N); 0 removes the limit.
	MaxRunSubjobs *int64 `json:"max_run_subjobs,omitempty"`
}

// SignalRequest is qsig's body: a signal name (SIGTERM, TERM, 15) or
// suspend, resume, admin-suspend, admin-resume.
type SignalRequest struct {
	Signal string `json:"signal"`
}

// MoveRequest is qmove's body.
type MoveRequest struct {
	Queue string `json:"queue"`
}

// RerunRequest is qrerun's body.
type RerunRequest struct {
	Force bool `json:"force,omitempty"`
}

// RunRequest is qrun's body: Vnodes from -H (one per chunk copy, reused in
// turn), or none to let the scheduler's placement pick.
type RunRequest struct {
	Vnodes []string `json:"vnodes,omitempty"`
}

// MarkNodesRequest is pbsnodes -o/-r/-C's body.
type MarkNodesRequest struct {
	Nodes   []string `json:"nodes"`
	Offline *bool    `json:"offline,omitempty"`
	Comment *string  `json:"comment,omitempty"`
}
