package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Job states (the S column of qstat and job_state).
const (
	StateQueued    = "Q"
	StateHeld      = "H"
	StateWaiting   = "W"
	StateRunning   = "R"
	StateSuspended = "S"
	StateExiting   = "E"
	StateBegun     = "B"
	StateExpired   = "X"
	StateFinished  = "F"
	StateMoved     = "M"
	StateTransit   = "T"
)

// Job substates shown by qstat -f.
const (
	SubQueued       = 10
	SubHeld         = 20
	SubDependHold   = 22
	SubWaiting      = 30
	SubPrerun       = 41
	SubRunning      = 42
	SubSuspended    = 43
	SubExiting      = 50
	SubProvisioning = 71
	SubTerminated   = 91
	SubFinished     = 92
	SubFailed       = 93
)

// Exit_status values Strata sets for reasons other than the script's own
// exit code (PBS's JOB_EXEC_* numbers).
const (
	ExitFail1        = -1  // could not start the job
	ExitFail2        = -2  // failed after files were set up
	ExitRetry        = -3  // start failed, job requeued
	ExitInitAbort    = -4  // agent restarted and could not recover the job
	ExitFailUID      = -10 // bad uid/gid
	ExitRerun        = -11 // requeued (node failure, qrerun)
	ExitKillWalltime = -29 // walltime exceeded
	ExitNodeLost     = -20 // mother superior lost (Strata uses PBS's RERUN_MS_FAIL)
)

// EnvVar keeps Variable_List in submission order, as qstat -f prints it.
type EnvVar struct {
	Name  string `json:"n"`
	Value string `json:"v"`
}

// VnodeShare is the part of one chunk placed on one vnode.
type VnodeShare struct {
	Vnode   string             `json:"vnode"`
	Host    string             `json:"host"`
	Amounts map[string]float64 `json:"amounts,omitempty"`
	// AOE is set when the vnode must be provisioned to this AOE first.
	AOE string `json:"aoe,omitempty"`
}

// ExecChunk is where one chunk copy runs: usually one vnode, several vnodes
// of one host when the chunk was split.
type ExecChunk struct {
	Shares   []VnodeShare `json:"shares"`
	MPIProcs int          `json:"mpiprocs"`
}

// Job is a batch job as the server stores it. Attribute names in comments are
// the PBS names qstat -f shows.
type Job struct {
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

	Env        []EnvVar `json:"env"`              // Variable_List
	Script     string   `json:"script,omitempty"` // the job script
	Argv       []string `json:"argv,omitempty"`   // qsub -- prog args
	SubmitArgs string   `json:"submit_args"`      // Submit_arguments
	SubmitHost string   `json:"submit_host"`      // Submit_Host
	Token      string   `json:"token,omitempty"`  // submission token for idempotent retries

	Ctime int64 `json:"ctime"`           // created
	Qtime int64 `json:"qtime"`           // entered the queue
	Mtime int64 `json:"mtime"`           // last modified
	Etime int64 `json:"etime"`           // became eligible
	Stime int64 `json:"stime,omitempty"` // started

	Exec      []ExecChunk       `json:"exec,omitempty"` // exec_vnode, structured
	SessionID int               `json:"session_id,omitempty"`
	Exit      *int              `json:"exit_status,omitempty"`
	Used      map[string]string `json:"resources_used,omitempty"`
	Comment   string            `json:"comment,omitempty"`
	RunCount  int               `json:"run_count"`
	// History is the job's bounded event log (tracejob), appended by the
	// FSM on every transition with the command's time.
	History []Event `json:"history,omitempty"`

	// Array is set on an array parent (seq[].server): its indices and the
	// compact state of its subjobs. ArrayID and ArrayIndex are set on a
	// subjob: its parent's id and its index.
	Array *ArrayState `json:"array,omitempty"`
	// Rank is the job's place in submission order, Seq at submission;
	// qorder swaps two jobs' ranks. Nil (jobs stored before it existed)
	// means Seq. See OrderRank.
	Rank *int64 `json:"rank,omitempty"`

	// JobExt holds the attributes most queued jobs never set (exec host,
	// signals, estimates, dependencies, staging, preemption, array
	// index...): nil until one is set (model/job_ext.go). Its JSON fields
	// are the job's own (encoding/json flattens an embedded struct), so the
	// Raft log, snapshots and the API carry the same attributes as before.
	*JobExt
}

// Event is one line of a job's life as tracejob prints it.
type Event struct {
	Time int64  `json:"t"`
	Text string `json:"text"`
}

// Dep is one pending dependency: Type is after, afterok, afternotok or
// afterany; Job is the full id of the job this one waits for.
type Dep struct {
	Type string `json:"type"`
	Job  string `json:"job"`
}

// EstExecVnode formats estimated.exec_vnode like exec_vnode.
func (j *Job) EstExecVnode(defs ResourceDefs) string {
	return (&Job{Exec: j.EstExec()}).ExecVnode(defs)
}

// Sig is a signal request for a running job, numbered so agents deliver
// each exactly once.
type Sig struct {
	N      int    `json:"n"`
	Signal string `json:"signal"`
}

// Copy returns a copy that may be changed without touching j. Maps and slices
// that updates replace wholesale are shared; the ones updated in place are
// cloned.
func (j *Job) Copy() *Job {
	c := *j
	c.ResourceList = copyStringMap(j.ResourceList)
	c.Used = copyStringMap(j.Used)
	// Appending to a shared backing array could write into a reader's
	// view; give the copy its own slices.
	c.History = append([]Event(nil), j.History...)
	c.copyExt()
	if j.Array != nil {
		c.Array = j.Array.Copy()
	}
	return &c
}

// IsFinished reports whether the job is history (F, X or M).
func (j *Job) IsFinished() bool {
	return j.State == StateFinished || j.State == StateExpired || j.State == StateMoved
}

// IsRunning reports whether the job holds vnodes (R, S, E).
func (j *Job) IsRunning() bool {
	return j.State == StateRunning || j.State == StateSuspended || j.State == StateExiting
}

// ExecVnode formats exec_vnode: "(vn1:ncpus=2:mem=1048576kb)+(vnA:ncpus=4+vnB:ncpus=4)".
func (j *Job) ExecVnode(defs ResourceDefs) string {
	var chunks []string
	for _, ec := range j.Exec {
		var shares []string
		for _, s := range ec.Shares {
			var b strings.Builder
			b.WriteString(s.Vnode)
			if s.AOE != "" {
				// PBS writes the aoe term before the consumables.
				b.WriteString(":aoe=" + s.AOE)
			}
			for _, name := range orderedAmounts(s.Amounts) {
				fmt.Fprintf(&b, ":%s=%s", name, defs[name].FormatAmount(s.Amounts[name]))
			}
			shares = append(shares, b.String())
		}
		chunks = append(chunks, "("+strings.Join(shares, "+")+")")
	}
	return strings.Join(chunks, "+")
}

// ExecHost formats exec_host: "node01/0*8+node02/0*8"; "*n" is left out when
// the chunk has one cpu.
func (j *Job) ExecHost() string {
	slot := map[string]int{}
	var parts []string
	for _, ec := range j.Exec {
		if len(ec.Shares) == 0 {
			continue
		}
		host := ec.Shares[0].Host
		var ncpus float64
		for _, s := range ec.Shares {
			ncpus += s.Amounts["ncpus"]
		}
		p := host + "/" + strconv.Itoa(slot[host])
		slot[host]++
		if ncpus > 1 {
			p += "*" + strconv.Itoa(int(ncpus))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "+")
}

// Hosts lists the distinct hosts of the job in chunk order; the first is the
// mother superior, whose agent runs the script.
func (j *Job) Hosts() []string {
	seen := map[string]bool{}
	var out []string
	for _, ec := range j.Exec {
		for _, s := range ec.Shares {
			if !seen[s.Host] {
				seen[s.Host] = true
				out = append(out, s.Host)
			}
		}
	}
	return out
}

// Vnodes lists the distinct vnodes of the job.
func (j *Job) Vnodes() []string {
	seen := map[string]bool{}
	var out []string
	for _, ec := range j.Exec {
		for _, s := range ec.Shares {
			if !seen[s.Vnode] {
				seen[s.Vnode] = true
				out = append(out, s.Vnode)
			}
		}
	}
	return out
}

// NodeFile returns PBS_NODEFILE's lines: one per MPI rank, the short host
// name, in chunk order.
func (j *Job) NodeFile() []string {
	var out []string
	for _, ec := range j.Exec {
		if len(ec.Shares) == 0 {
			continue
		}
		n := ec.MPIProcs
		if n <= 0 {
			n = 1
		}
		host := ec.Shares[0].Host
		if d := strings.IndexByte(host, '.'); d >= 0 {
			host = host[:d]
		}
		for i := 0; i < n; i++ {
			out = append(out, host)
		}
	}
	return out
}

// EnvValue returns a Variable_List entry.
func (j *Job) EnvValue(name string) string {
	for _, e := range j.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// orderedAmounts lists ncpus and mem first (as PBS prints them) then the rest
// alphabetically.
func orderedAmounts(m map[string]float64) []string {
	var out []string
	for _, k := range []string{"ncpus", "mem"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	for _, k := range SortedKeys(m) {
		if k != "ncpus" && k != "mem" {
			out = append(out, k)
		}
	}
	return out
}

// DefaultUmask is the umask of a job submitted without -W umask, as PBS.
const DefaultUmask = 0o077

// ParseUmask checks a umask attribute value: octal digits, at most 0777.
func ParseUmask(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	if t := strings.TrimLeft(s, "0"); len(t) > 3 {
		return 0, false // also keeps the arithmetic below from overflowing
	}
	v := 0
	for _, c := range s {
		if c < '0' || c > '7' {
			return 0, false
		}
		v = v*8 + int(c-'0')
	}
	return v, v <= 0o777
}

// JobUmask is the job's umask (DefaultUmask when unset or invalid).
func (j *Job) JobUmask() int {
	if v, ok := ParseUmask(j.Umask()); ok {
		return v
	}
	return DefaultUmask
}
