package model

import "reflect"

// JobExt holds a job's attributes that most queued jobs never set: where
// and how it runs (mother superior, exclusive placement, obit time), kill
// requests and signals, the scheduler's estimates, dependencies,
// execution time, staging, group_list, umask, preemption state and a
// subjob's place in its array. A job row is held by the state store for
// every queued job; these fields made it 1,040 bytes (the 1,152-byte size
// class) where the fields every job has fit in 704. They live in a
// side structure allocated when one of them is first set.
//
// Job embeds *JobExt so that encoding/json writes and reads the fields
// as the job's own: the Raft log, snapshots, the API and agents' spool
// records keep the same attribute names and values (only their order in
// the object moves to its end), and a record of either layout reads into
// the other. Code reads and writes them through the accessors below, which
// have the fields' names: a method of Job hides the promoted field of the
// same name, so every reader had to become a call, and a nil JobExt
// reads as zero values instead of a nil-pointer dereference. Setting a
// zero value on a job without a JobExt allocates nothing.
type JobExt struct {
	Interactive bool `json:"interactive,omitempty"` // PBS_ENVIRONMENT=PBS_INTERACTIVE
	// InteractiveAddr is where qsub -I waits for the agent (host:port);
	// InteractiveCookie proves to qsub that the agent speaks for this job
	// (server/api/interactive.go). Users never see the cookie.
	InteractiveAddr   string `json:"interactive_addr,omitempty"`
	InteractiveCookie string `json:"interactive_cookie,omitempty"`
	Obit              int64  `json:"obittime,omitempty"`
	// MSHost is the mother superior: the host whose agent runs the script.
	MSHost string `json:"ms_host,omitempty"`
	// Exclusive records that the job holds its vnodes exclusively.
	Exclusive bool `json:"exclusive,omitempty"`

	// KillRequested is set by qdel on a running job; the agent sees it and
	// signals the job. KillSignal is the signal a qsig asked for.
	KillRequested bool   `json:"kill_requested,omitempty"`
	Signals       []Sig  `json:"signals,omitempty"`
	Deleter       string `json:"deleter,omitempty"`

	// NeverRunEpoch records the resource epoch at which the scheduler found
	// the job can never run; the job is not looked at again until the vnodes
	// or resources change (the epoch moves).
	NeverRunEpoch uint64 `json:"never_run_epoch,omitempty"`

	// ExecTime is Execution_Time (qsub -a): the job waits in W until then.
	ExecTime int64 `json:"execution_time,omitempty"`
	// Depend is the depend attribute as submitted (ids expanded); Deps are
	// the dependencies still pending, which keep the job in H/22.
	Depend string `json:"depend,omitempty"`
	Deps   []Dep  `json:"deps,omitempty"`
	// GroupList is group_list (qsub -W group_list).
	GroupList string `json:"group_list,omitempty"`
	// Umask is umask (qsub -W umask): octal digits, the mask the job and
	// its output files are created with; "" means DefaultUmask.
	Umask string `json:"umask,omitempty"`
	// Stagein and Stageout are stagein and stageout (qsub -W): PBS
	// staging lists, checked by ParseStageList (model/stage.go).
	Stagein  string `json:"stagein,omitempty"`
	Stageout string `json:"stageout,omitempty"`
	// CreateResvFromJob is qsub -W create_resv_from_job=true: when the
	// job starts, a reservation is made of its vnodes and walltime and the
	// job moves into it (raftstore/apply_resv_job.go).
	CreateResvFromJob bool `json:"create_resv_from_job,omitempty"`
	// RequeueOnEnd is set by qrerun: the kill the agent delivers ends in a
	// requeue rather than in history.
	RequeueOnEnd bool `json:"requeue_on_end,omitempty"`
	// PreemptedAt is time_preempted (model/preempt.go): when the scheduler
	// last preempted the job; Preempting is the method (C) still under
	// way, whose vnodes are freed when the job's end is reported.
	PreemptedAt int64  `json:"time_preempted,omitempty"`
	Preempting  string `json:"preempting,omitempty"`

	// EstStart is estimated.start_time: when the scheduler plans to start
	// this queued top job (Unix seconds, 0 when none). EstExec is
	// estimated.exec_vnode, structured like Exec: the vnodes the plan holds.
	// TopJob is topjob. The scheduler reads them back each cycle so that a
	// top job's plan is kept, not rebuilt from nothing.
	EstStart int64       `json:"estimated_start_time,omitempty"`
	EstExec  []ExecChunk `json:"estimated_exec,omitempty"`
	TopJob   bool        `json:"topjob,omitempty"`
	// EstSoftWalltime is estimated.soft_walltime (seconds): the scheduler's
	// extension of a running job's soft_walltime once it was passed
	// (model/softwall.go); 0 until then.
	EstSoftWalltime int64  `json:"estimated_soft_walltime,omitempty"`
	ArrayID         string `json:"array_id,omitempty"`
	ArrayIndex      int64  `json:"array_index,omitempty"`
}

// ext returns the job's JobExt, allocating it first if needed.
func (j *Job) ext() *JobExt {
	if j.JobExt == nil {
		j.JobExt = &JobExt{}
	}
	return j.JobExt
}

// copyExt gives a copy of a job its own JobExt: writers change a stored
// job's Copy, which must not write into the stored one's JobExt. The
// slices that are appended to in place get their own arrays too.
func (j *Job) copyExt() {
	if j.JobExt == nil {
		return
	}
	e := *j.JobExt
	e.Deps = append([]Dep(nil), e.Deps...)
	e.Signals = append([]Sig(nil), e.Signals...)
	j.JobExt = &e
}

// Interactive is the job's Interactive (JobExt; zero when unset).
func (j *Job) Interactive() bool {
	if j.JobExt == nil {
		var zero bool
		return zero
	}
	return j.JobExt.Interactive
}

// SetInteractive sets Interactive.
func (j *Job) SetInteractive(v bool) {
	if j.JobExt == nil && v == false {
		return
	}
	j.ext().Interactive = v
}

// InteractiveAddr is the job's InteractiveAddr (JobExt; zero when unset).
func (j *Job) InteractiveAddr() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.InteractiveAddr
}

// SetInteractiveAddr sets InteractiveAddr.
func (j *Job) SetInteractiveAddr(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().InteractiveAddr = v
}

// InteractiveCookie is the job's InteractiveCookie (JobExt; zero when unset).
func (j *Job) InteractiveCookie() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.InteractiveCookie
}

// SetInteractiveCookie sets InteractiveCookie.
func (j *Job) SetInteractiveCookie(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().InteractiveCookie = v
}

// Obit is the job's Obit (JobExt; zero when unset).
func (j *Job) Obit() int64 {
	if j.JobExt == nil {
		var zero int64
		return zero
	}
	return j.JobExt.Obit
}

// SetObit sets Obit.
func (j *Job) SetObit(v int64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().Obit = v
}

// MSHost is the job's MSHost (JobExt; zero when unset).
func (j *Job) MSHost() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.MSHost
}

// SetMSHost sets MSHost.
func (j *Job) SetMSHost(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().MSHost = v
}

// Exclusive is the job's Exclusive (JobExt; zero when unset).
func (j *Job) Exclusive() bool {
	if j.JobExt == nil {
		var zero bool
		return zero
	}
	return j.JobExt.Exclusive
}

// SetExclusive sets Exclusive.
func (j *Job) SetExclusive(v bool) {
	if j.JobExt == nil && v == false {
		return
	}
	j.ext().Exclusive = v
}

// KillRequested is the job's KillRequested (JobExt; zero when unset).
func (j *Job) KillRequested() bool {
	if j.JobExt == nil {
		var zero bool
		return zero
	}
	return j.JobExt.KillRequested
}

// SetKillRequested sets KillRequested.
func (j *Job) SetKillRequested(v bool) {
	if j.JobExt == nil && v == false {
		return
	}
	j.ext().KillRequested = v
}

// Signals is the job's Signals (JobExt; zero when unset).
func (j *Job) Signals() []Sig {
	if j.JobExt == nil {
		var zero []Sig
		return zero
	}
	return j.JobExt.Signals
}

// SetSignals sets Signals.
func (j *Job) SetSignals(v []Sig) {
	if j.JobExt == nil && len(v) == 0 {
		return
	}
	j.ext().Signals = v
}

// Deleter is the job's Deleter (JobExt; zero when unset).
func (j *Job) Deleter() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.Deleter
}

// SetDeleter sets Deleter.
func (j *Job) SetDeleter(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().Deleter = v
}

// NeverRunEpoch is the job's NeverRunEpoch (JobExt; zero when unset).
func (j *Job) NeverRunEpoch() uint64 {
	if j.JobExt == nil {
		var zero uint64
		return zero
	}
	return j.JobExt.NeverRunEpoch
}

// SetNeverRunEpoch sets NeverRunEpoch.
func (j *Job) SetNeverRunEpoch(v uint64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().NeverRunEpoch = v
}

// ExecTime is the job's ExecTime (JobExt; zero when unset).
func (j *Job) ExecTime() int64 {
	if j.JobExt == nil {
		var zero int64
		return zero
	}
	return j.JobExt.ExecTime
}

// SetExecTime sets ExecTime.
func (j *Job) SetExecTime(v int64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().ExecTime = v
}

// Depend is the job's Depend (JobExt; zero when unset).
func (j *Job) Depend() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.Depend
}

// SetDepend sets Depend.
func (j *Job) SetDepend(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().Depend = v
}

// Deps is the job's Deps (JobExt; zero when unset).
func (j *Job) Deps() []Dep {
	if j.JobExt == nil {
		var zero []Dep
		return zero
	}
	return j.JobExt.Deps
}

// SetDeps sets Deps.
func (j *Job) SetDeps(v []Dep) {
	if j.JobExt == nil && len(v) == 0 {
		return
	}
	j.ext().Deps = v
}

// GroupList is the job's GroupList (JobExt; zero when unset).
func (j *Job) GroupList() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.GroupList
}

// SetGroupList sets GroupList.
func (j *Job) SetGroupList(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().GroupList = v
}

// Umask is the job's Umask (JobExt; zero when unset).
func (j *Job) Umask() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.Umask
}

// SetUmask sets Umask.
func (j *Job) SetUmask(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().Umask = v
}

// Stagein is the job's Stagein (JobExt; zero when unset).
func (j *Job) Stagein() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.Stagein
}

// SetStagein sets Stagein.
func (j *Job) SetStagein(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().Stagein = v
}

// Stageout is the job's Stageout (JobExt; zero when unset).
func (j *Job) Stageout() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.Stageout
}

// SetStageout sets Stageout.
func (j *Job) SetStageout(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().Stageout = v
}

// CreateResvFromJob is the job's CreateResvFromJob (JobExt; zero when unset).
func (j *Job) CreateResvFromJob() bool {
	if j.JobExt == nil {
		var zero bool
		return zero
	}
	return j.JobExt.CreateResvFromJob
}

// SetCreateResvFromJob sets CreateResvFromJob.
func (j *Job) SetCreateResvFromJob(v bool) {
	if j.JobExt == nil && v == false {
		return
	}
	j.ext().CreateResvFromJob = v
}

// RequeueOnEnd is the job's RequeueOnEnd (JobExt; zero when unset).
func (j *Job) RequeueOnEnd() bool {
	if j.JobExt == nil {
		var zero bool
		return zero
	}
	return j.JobExt.RequeueOnEnd
}

// SetRequeueOnEnd sets RequeueOnEnd.
func (j *Job) SetRequeueOnEnd(v bool) {
	if j.JobExt == nil && v == false {
		return
	}
	j.ext().RequeueOnEnd = v
}

// PreemptedAt is the job's PreemptedAt (JobExt; zero when unset).
func (j *Job) PreemptedAt() int64 {
	if j.JobExt == nil {
		var zero int64
		return zero
	}
	return j.JobExt.PreemptedAt
}

// SetPreemptedAt sets PreemptedAt.
func (j *Job) SetPreemptedAt(v int64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().PreemptedAt = v
}

// Preempting is the job's Preempting (JobExt; zero when unset).
func (j *Job) Preempting() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.Preempting
}

// SetPreempting sets Preempting.
func (j *Job) SetPreempting(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().Preempting = v
}

// EstStart is the job's EstStart (JobExt; zero when unset).
func (j *Job) EstStart() int64 {
	if j.JobExt == nil {
		var zero int64
		return zero
	}
	return j.JobExt.EstStart
}

// SetEstStart sets EstStart.
func (j *Job) SetEstStart(v int64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().EstStart = v
}

// EstExec is the job's EstExec (JobExt; zero when unset).
func (j *Job) EstExec() []ExecChunk {
	if j.JobExt == nil {
		var zero []ExecChunk
		return zero
	}
	return j.JobExt.EstExec
}

// SetEstExec sets EstExec.
func (j *Job) SetEstExec(v []ExecChunk) {
	if j.JobExt == nil && len(v) == 0 {
		return
	}
	j.ext().EstExec = v
}

// TopJob is the job's TopJob (JobExt; zero when unset).
func (j *Job) TopJob() bool {
	if j.JobExt == nil {
		var zero bool
		return zero
	}
	return j.JobExt.TopJob
}

// SetTopJob sets TopJob.
func (j *Job) SetTopJob(v bool) {
	if j.JobExt == nil && v == false {
		return
	}
	j.ext().TopJob = v
}

// EstSoftWalltime is the job's EstSoftWalltime (JobExt; zero when unset).
func (j *Job) EstSoftWalltime() int64 {
	if j.JobExt == nil {
		var zero int64
		return zero
	}
	return j.JobExt.EstSoftWalltime
}

// SetEstSoftWalltime sets EstSoftWalltime.
func (j *Job) SetEstSoftWalltime(v int64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().EstSoftWalltime = v
}

// ArrayID is the job's ArrayID (JobExt; zero when unset).
func (j *Job) ArrayID() string {
	if j.JobExt == nil {
		var zero string
		return zero
	}
	return j.JobExt.ArrayID
}

// SetArrayID sets ArrayID.
func (j *Job) SetArrayID(v string) {
	if j.JobExt == nil && v == "" {
		return
	}
	j.ext().ArrayID = v
}

// ArrayIndex is the job's ArrayIndex (JobExt; zero when unset).
func (j *Job) ArrayIndex() int64 {
	if j.JobExt == nil {
		var zero int64
		return zero
	}
	return j.JobExt.ArrayIndex
}

// SetArrayIndex sets ArrayIndex.
func (j *Job) SetArrayIndex(v int64) {
	if j.JobExt == nil && v == 0 {
		return
	}
	j.ext().ArrayIndex = v
}

// IsZero reports whether no attribute of e is set: a JobExt whose
// attributes were all cleared again (a requeued job) can be dropped.
func (e *JobExt) IsZero() bool { return e == nil || reflect.ValueOf(*e).IsZero() }

// Dup returns a copy of the job value with its own JobExt, for code that
// copies a job by value (cp := *j) and then sets one of JobExt's
// attributes: a plain value copy shares the JobExt, so its setters would
// write into j. Maps and slices are shared as with a value copy (Copy
// also gives the copy its own Resource_List, resources_used and history).
func (j *Job) Dup() Job {
	c := *j
	c.copyExt()
	return c
}
