package model

import (
	"strconv"
	"strings"
)

// Reservation errors, as OpenPBS numbers and words them.
const (
	PBSEBadTimeSpec = 15086 // PBSE_BADTSPEC
)

// MsgBadTimeSpec is PBSE_BADTSPEC's text.
const MsgBadTimeSpec = "Bad time specification(s)"

// Reservation states (reserve_state), with PBS's numbers.
const (
	ResvNone           = 0
	ResvUnconfirmed    = 1
	ResvConfirmed      = 2
	ResvWait           = 3
	ResvTimeToRun      = 4
	ResvRunning        = 5
	ResvFinished       = 6
	ResvBeingDeleted   = 7
	ResvDeleted        = 8
	ResvDeletingJobs   = 9
	ResvDegraded       = 10
	ResvBeingAltered   = 11
	ResvInConflict     = 12
	resvStateCount     = 13
	ResvPrefixAdvance  = "R"
	ResvPrefixStanding = "S"
)

var resvShort = [resvStateCount]string{"NO", "UN", "CO", "WT", "TR", "RN", "FN", "BD", "DE", "DJ", "DG", "AL", "IC"}
var resvLong = [resvStateCount]string{"RESV_NONE", "RESV_UNCONFIRMED", "RESV_CONFIRMED", "RESV_WAIT",
	"RESV_TIME_TO_RUN", "RESV_RUNNING", "RESV_FINISHED", "RESV_BEING_DELETED", "RESV_DELETED",
	"RESV_DELETING_JOBS", "RESV_DEGRADED", "RESV_BEING_ALTERED", "RESV_IN_CONFLICT"}

// ResvStateShort is pbs_rstat's two-letter code of a state ("CO").
func ResvStateShort(s int) string {
	if s < 0 || s >= resvStateCount {
		return "??"
	}
	return resvShort[s]
}

// ResvStateLong is a state's long name ("RESV_CONFIRMED").
func ResvStateLong(s int) string {
	if s < 0 || s >= resvStateCount {
		return "RESV_NONE"
	}
	return resvLong[s]
}

// Reservation is an advance (R<seq>) or standing (S<seq>) reservation. Its
// sequence number comes from the one counter jobs use; its queue is named
// like its id without the server.
type Reservation struct {
	ID     string `json:"id"`
	Seq    int64  `json:"seq"`
	Name   string `json:"name"`  // Reserve_Name
	Owner  string `json:"owner"` // Reserve_Owner (user@host)
	User   string `json:"user"`
	Queue  string `json:"queue"`
	Server string `json:"server"`
	Token  string `json:"token,omitempty"` // idempotent retries of pbs_rsub

	Start    int64 `json:"start"`    // reserve_start
	End      int64 `json:"end"`      // reserve_end
	Duration int64 `json:"duration"` // reserve_duration

	ResourceList map[string]string `json:"resource_list"`
	Select       Select            `json:"select"` // schedselect
	Place        Place             `json:"place"`
	// AOE is the one AOE its select asks for ("" for none). Its vnodes are
	// provisioned before Start (docs/reservations.md).
	AOE string `json:"aoe,omitempty"`

	// AuthorizedUsers (-U) become the queue's acl_users; the owner is
	// always one of them.
	AuthorizedUsers []string `json:"authorized_users"`

	State    int `json:"state"`
	Substate int `json:"substate"`
	// Nodes is resv_nodes once confirmed: the vnodes and amounts held.
	Nodes []ExecChunk `json:"nodes,omitempty"`

	// Standing reservations: the RRULE, the time zone it is read in, how
	// many occurrences there are and which one is current (1-based).
	RRule string `json:"rrule,omitempty"`
	TZ    string `json:"tz,omitempty"`
	Count int    `json:"count,omitempty"`
	Index int    `json:"index,omitempty"`
	// Occurrences are the start times of every occurrence (standing only);
	// each lasts Duration.
	Occurrences []int64 `json:"occurrences,omitempty"`

	// Provisioned is set once the provisioning of its vnodes to AOE was
	// queued, so the leader does it once per occurrence.
	Provisioned bool `json:"provisioned,omitempty"`

	// Comment says what happened last (denial reason, provisioning...).
	Comment string `json:"comment,omitempty"`
	Ctime   int64  `json:"ctime"`
	Mtime   int64  `json:"mtime"`
	// Gone is set on a denied, deleted or finished reservation kept
	// briefly as a tombstone so that pbs_rsub -I can learn the outcome;
	// pbs_rstat never lists it. Denied says the scheduler denied it.
	Gone   int64 `json:"gone,omitempty"`
	Denied bool  `json:"denied,omitempty"`

	// AuthorizedGroups (-G) and AuthorizedHosts (-H) become the queue's
	// acl_groups and acl_hosts (resv_alter.go).
	AuthorizedGroups []string `json:"authorized_groups,omitempty"`
	AuthorizedHosts  []string `json:"authorized_hosts,omitempty"`
	// MailPoints (-m, default "ac") and MailUsers (-M) say who is mailed
	// when (docs/reservations.md).
	MailPoints string `json:"mail_points,omitempty"`
	MailUsers  string `json:"mail_users,omitempty"`
	// Alter is a pending pbs_ralter (state RESV_BEING_ALTERED): what to
	// go back to when the scheduler refuses it. AlterOutcome is the last
	// alteration's verdict (CONFIRMED or DENIED) for pbs_ralter -I.
	Alter        *ResvAlter `json:"alter,omitempty"`
	AlterOutcome string     `json:"alter_outcome,omitempty"`
	// OccurrenceDuration is a standing reservation's duration for its
	// later occurrences while pbs_ralter changed the current one's (0: the
	// same as Duration).
	OccurrenceDuration int64 `json:"occurrence_duration,omitempty"`
}

// Copy returns a deep copy.
func (r *Reservation) Copy() *Reservation {
	c := *r
	c.ResourceList = copyStringMap(r.ResourceList)
	c.Select = append(Select(nil), r.Select...)
	c.AuthorizedUsers = append([]string(nil), r.AuthorizedUsers...)
	c.Nodes = append([]ExecChunk(nil), r.Nodes...)
	c.Occurrences = append([]int64(nil), r.Occurrences...)
	c.copyAlterFields()
	return &c
}

// Standing reports whether r is a standing reservation.
func (r *Reservation) Standing() bool { return strings.HasPrefix(r.ID, ResvPrefixStanding) }

// Active reports whether the reservation holds resources (confirmed or
// running, possibly degraded).
func (r *Reservation) Active() bool {
	return r.Gone == 0 && (r.State == ResvConfirmed || r.State == ResvRunning || r.State == ResvDegraded)
}

// ResvNodes formats resv_nodes: "(node1:ncpus=2)+(node2:ncpus=2)", with
// ":aoe=X" on vnodes of an AOE reservation.
func (r *Reservation) ResvNodes(defs ResourceDefs) string {
	j := &Job{Exec: r.Nodes}
	return j.ExecVnode(defs)
}

// ResvVnodes returns the names of its vnodes, in resv_nodes order.
func (r *Reservation) ResvVnodes() []string {
	var out []string
	seen := map[string]bool{}
	for _, ec := range r.Nodes {
		for _, s := range ec.Shares {
			if !seen[s.Vnode] {
				seen[s.Vnode] = true
				out = append(out, s.Vnode)
			}
		}
	}
	return out
}

// FormatResvID builds "R<seq>.<server>" (or S for standing).
func FormatResvID(prefix string, seq int64, server string) string {
	return prefix + strconv.FormatInt(seq, 10) + "." + server
}

// ResvQueueName is the queue of a reservation id: the id without the server.
func ResvQueueName(id string) string {
	if dot := strings.IndexByte(id, '.'); dot >= 0 {
		return id[:dot]
	}
	return id
}

// IsResvQueue reports whether a queue name is a reservation's (R123/S123).
func IsResvQueue(name string) bool {
	if len(name) < 2 || (name[0] != 'R' && name[0] != 'S') {
		return false
	}
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
