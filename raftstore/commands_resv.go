package raftstore

import "github.com/strata-hpc/strata/model"

// Reservation commands (docs/reservations.md). A reservation is a
// replicated record; the scheduler confirms or denies it inside its plan
// (ApplyPlan.Resvs) and the leader's reservation loop proposes the
// timed transitions (start, end, provisioning lead), so a new leader
// resumes from the state alone.

// SubmitResv creates a reservation (pbs_rsub). The FSM assigns its
// sequence number from the job counter and creates its queue.
type SubmitResv struct {
	Resv *model.Reservation `json:"resv"`
	Now  int64              `json:"now"`
}

// Reservation event kinds proposed by the leader's reservation loop.
const (
	ResvEventStart     = "start"     // start time reached: RN, queue started
	ResvEventEnd       = "end"       // end time reached: jobs handled, next occurrence or gone
	ResvEventProvision = "provision" // AOE lead time reached: provision its hosts
	ResvEventPurge     = "purge"     // drop tombstones gone before Before
)

// ResvEvent is one timed transition of a reservation. The FSM re-checks
// the time against the reservation, so a late or repeated event is
// harmless.
type ResvEvent struct {
	ID     string `json:"id,omitempty"`
	Kind   string `json:"kind"`
	Before int64  `json:"before,omitempty"`
	Now    int64  `json:"now"`
}

// DeleteResv deletes a reservation, its queue and its jobs (pbs_rdel).
// Permission is checked by the server.
type DeleteResv struct {
	ID        string `json:"id"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

// ResvEventResult says what an event did; Busy lists hosts whose
// provisioning could not be queued yet (a job still runs there).
type ResvEventResult struct {
	Done bool     `json:"done"`
	Busy []string `json:"busy,omitempty"`
}

func (SubmitResv) Type() MessageType { return SubmitResvType }
func (ResvEvent) Type() MessageType  { return ResvEventType }
func (DeleteResv) Type() MessageType { return DeleteResvType }

// AlterResv is pbs_ralter (apply_resv_alter.go). The server validated the
// request against a snapshot and computed the new times and request; the
// FSM re-checks what may have changed since (state, jobs) and applies it.
// Nil fields are left as they are.
type AlterResv struct {
	ID        string  `json:"id"`
	Requestor string  `json:"requestor"`
	Now       int64   `json:"now"`
	Name      *string `json:"name,omitempty"`
	// Users, Groups and Hosts replace Authorized_Users/Groups/Hosts (and
	// the queue's ACLs) when non-nil.
	Users      *[]string `json:"users,omitempty"`
	Groups     *[]string `json:"groups,omitempty"`
	Hosts      *[]string `json:"hosts,omitempty"`
	MailPoints *string   `json:"mail_points,omitempty"`
	MailUsers  *string   `json:"mail_users,omitempty"`
	// Reconfirm carries new times and/or a new request the scheduler must
	// confirm: the reservation goes to RESV_BEING_ALTERED until it does.
	Reconfirm    bool              `json:"reconfirm,omitempty"`
	StartChanged bool              `json:"start_changed,omitempty"`
	Start        int64             `json:"start,omitempty"`
	End          int64             `json:"end,omitempty"`
	Duration     int64             `json:"duration,omitempty"`
	ResourceList map[string]string `json:"resource_list,omitempty"`
	Select       model.Select      `json:"select,omitempty"`
	// Force is -Wforce; Direct applies a forced change at once (no
	// scheduler is running to ask).
	Force  bool `json:"force,omitempty"`
	Direct bool `json:"direct,omitempty"`
	// Abandon puts back a pending alteration the scheduler did not decide
	// before the reservation's old or new end (the leader proposes it).
	Abandon bool `json:"abandon,omitempty"`
	// Shrink gives a running reservation with jobs the smaller Select
	// and ResourceList on Nodes (a subset of its chunks) at once.
	Shrink bool              `json:"shrink,omitempty"`
	Nodes  []model.ExecChunk `json:"nodes,omitempty"`
}

func (AlterResv) Type() MessageType { return AlterResvType }
