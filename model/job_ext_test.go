package model

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"

	"github.com/strata-hpc/strata/internal/fillvalue"
)

// TestJobExtJSONBothWays: the Raft log, snapshots, the API and agents'
// spool records written with the job layout before JobExt (every
// attribute a field of Job) read into today's Job with every value, and
// today's records read into the old layout with every value: the JSON
// objects are equal (only the order of the keys moved).
func TestJobExtJSONBothWays(t *testing.T) {
	old := &jobBeforeExt{}
	fillvalue.Fill(reflect.ValueOf(old).Elem(), 1)
	oldJSON, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var j Job
	if err := json.Unmarshal(oldJSON, &j); err != nil {
		t.Fatal(err)
	}
	newJSON, err := json.Marshal(&j)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	json.Unmarshal(oldJSON, &a)
	json.Unmarshal(newJSON, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("old layout read into Job and written again differs:\nold %s\nnew %s", oldJSON, newJSON)
	}
	var back jobBeforeExt
	if err := json.Unmarshal(newJSON, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, old) {
		t.Fatalf("Job read back into the old layout differs:\nwant %+v\ngot  %+v", old, back)
	}
	// Every old field is somewhere in Job.
	if got, want := len(b), reflect.TypeOf(jobBeforeExt{}).NumField(); got != want {
		t.Fatalf("%d attributes written, the old layout has %d", got, want)
	}
}

// TestQueuedJobWithoutExt: a job with none of JobExt's attributes, as
// most queued jobs are, reads from JSON without a JobExt, its accessors
// read zero values, setting zero values allocates none, and the row fits
// the size class the memory figures count on (docs/performance.md).
func TestQueuedJobWithoutExt(t *testing.T) {
	var j Job
	if err := json.Unmarshal([]byte(`{"id":"1.s","state":"H","hold":"u","queue":"workq"}`), &j); err != nil {
		t.Fatal(err)
	}
	if j.JobExt != nil {
		t.Fatalf("JobExt allocated for a job without its attributes: %+v", *j.JobExt)
	}
	if j.MSHost() != "" || j.Deps() != nil || j.EstStart() != 0 || j.TopJob() {
		t.Fatal("zero values expected")
	}
	j.SetMSHost("")
	j.SetDeps(nil)
	j.SetTopJob(false)
	if j.JobExt != nil {
		t.Fatal("setting zero values allocated a JobExt")
	}
	if size := unsafe.Sizeof(j); size > 704 {
		t.Errorf("model.Job is %d bytes: more than the 704-byte size class", size)
	}
}

// TestJobCopyOwnsExt: a writer's Copy (and Dup) must not write into the
// stored job's JobExt.
func TestJobCopyOwnsExt(t *testing.T) {
	stored := &Job{ID: "1.s"}
	stored.SetMSHost("n1")
	stored.SetSignals([]Sig{{N: 1, Signal: "TERM"}})
	c := stored.Copy()
	c.SetMSHost("n2")
	c.SetSignals(append(c.Signals(), Sig{N: 2, Signal: "KILL"}))
	d := stored.Dup()
	d.SetMSHost("n3")
	if stored.MSHost() != "n1" || len(stored.Signals()) != 1 {
		t.Fatalf("stored job changed through a copy: %s %v", stored.MSHost(), stored.Signals())
	}
}

// jobBeforeExt is model.Job as it was before JobExt (commit c13836b).
type jobBeforeExt struct {
	ID       string `json:"id"`
	Seq      int64  `json:"seq"`
	Name     string `json:"name"`       // Job_Name
	Owner    string `json:"owner"`      // Job_Owner (user@host)
	User     string `json:"user"`       // euser
	Group    string `json:"group"`      // egroup
	UID      int    `json:"uid"`        // numeric identity the job runs as
	GID      int    `json:"gid"`        //
	State    string `json:"state"`      // job_state
	Substate int    `json:"substate"`   // substate
	Queue    string `json:"queue"`      // queue
	Server   string `json:"server"`     // server
	Priority int    `json:"priority"`   // Priority
	Hold     string `json:"hold"`       // Hold_Types ("n" when none)
	Join     string `json:"join"`       // Join_Path
	Keep     string `json:"keep"`       // Keep_Files
	Rerun    bool   `json:"rerunable"`  // Rerunable
	Output   string `json:"output"`     // Output_Path (host:path)
	Error    string `json:"error"`      // Error_Path (host:path)
	Shell    string `json:"shell"`      // Shell_Path_List
	Account  string `json:"account"`    // Account_Name
	Project  string `json:"project"`    // project
	Mail     string `json:"mail"`       // Mail_Points
	MailTo   string `json:"mail_users"` // Mail_Users
	Checkpt  string `json:"checkpoint"` // Checkpoint

	// ResourceList holds Resource_List.* in canonical form, including the
	// normalized select and place and the derived ncpus, mem and nodect.
	ResourceList map[string]string `json:"resource_list"`
	// Select is schedselect: the select after chunk defaults were applied.
	Select Select `json:"select"`
	Place  Place  `json:"place"`

	Env    []EnvVar `json:"env"`              // Variable_List
	Script string   `json:"script,omitempty"` // the job script
	Argv   []string `json:"argv,omitempty"`   // qsub -- prog args

	SubmitArgs  string `json:"submit_args"`           // Submit_arguments
	SubmitHost  string `json:"submit_host"`           // Submit_Host
	Token       string `json:"token,omitempty"`       // submission token for idempotent retries
	Interactive bool   `json:"interactive,omitempty"` // PBS_ENVIRONMENT=PBS_INTERACTIVE
	// InteractiveAddr is where qsub -I waits for the agent (host:port);
	// InteractiveCookie proves to qsub that the agent speaks for this job
	// (server/api/interactive.go). Users never see the cookie.
	InteractiveAddr   string `json:"interactive_addr,omitempty"`
	InteractiveCookie string `json:"interactive_cookie,omitempty"`

	Ctime int64 `json:"ctime"`           // created
	Qtime int64 `json:"qtime"`           // entered the queue
	Mtime int64 `json:"mtime"`           // last modified
	Etime int64 `json:"etime"`           // became eligible
	Stime int64 `json:"stime,omitempty"` // started
	Obit  int64 `json:"obittime,omitempty"`

	Exec []ExecChunk `json:"exec,omitempty"` // exec_vnode, structured
	// MSHost is the mother superior: the host whose agent runs the script.
	MSHost string `json:"ms_host,omitempty"`
	// Exclusive records that the job holds its vnodes exclusively.
	Exclusive bool              `json:"exclusive,omitempty"`
	SessionID int               `json:"session_id,omitempty"`
	Exit      *int              `json:"exit_status,omitempty"`
	Used      map[string]string `json:"resources_used,omitempty"`
	Comment   string            `json:"comment,omitempty"`
	RunCount  int               `json:"run_count"`

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
	// History is the job's bounded event log (tracejob), appended by the
	// FSM on every transition with the command's time.
	History []Event `json:"history,omitempty"`

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
	EstSoftWalltime int64 `json:"estimated_soft_walltime,omitempty"`

	// Array is set on an array parent (seq[].server): its indices and the
	// compact state of its subjobs. ArrayID and ArrayIndex are set on a
	// subjob: its parent's id and its index.
	Array      *ArrayState `json:"array,omitempty"`
	ArrayID    string      `json:"array_id,omitempty"`
	ArrayIndex int64       `json:"array_index,omitempty"`
	// Rank is the job's place in submission order, Seq at submission;
	// qorder swaps two jobs' ranks. Nil (jobs stored before it existed)
	// means Seq. See OrderRank.
	Rank *int64 `json:"rank,omitempty"`
}
