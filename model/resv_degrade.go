package model

import "strings"

// Degraded, maintenance and job-specific reservations
// (docs/reservations.md). Their fields live in ResvExtra, embedded in
// Reservation, so that the base record stays as it was.

// ResvPrefixMaint is the id prefix of maintenance reservations (M<seq>).
const ResvPrefixMaint = "M"

// DefaultDeleteIdleTime is delete_idle_time of a job-specific reservation
// when none is given (PBS: 10 minutes).
const DefaultDeleteIdleTime = 600

// DegradeStates are the vnode states that make a reservation holding the
// vnode degraded (PBS vnode_unavailable): down, offline, stale,
// state-unknown, maintenance and sleep.
const DegradeStates = NodeDown | NodeOffline | NodeStale | NodeStateUnknown | NodeMaintenance | NodeSleep

// VnodeDegrades reports whether a vnode in state s degrades a reservation
// holding it. A vnode being provisioned does not: an OS image restarts its
// agent (down for a while), and that is the reservation's own provisioning
// before its start, not a failure.
func VnodeDegrades(s NodeState) bool {
	return s&(NodeProvisioning|NodeWaitProvisioning) == 0 && s&DegradeStates != 0
}

// ResvExtra holds the replicated state of degradation, maintenance and
// job-specific reservations.
type ResvExtra struct {
	// RetryAt is when the scheduler next tries to replace the unavailable
	// vnodes of a degraded reservation (reserve_retry_time); 0 = at once.
	RetryAt int64 `json:"retry_at,omitempty"`
	// Unavailable lists the vnodes that made it degraded, for the comment
	// and pbs_rstat.
	Unavailable []string `json:"unavailable,omitempty"`
	// BaseNodes are a standing reservation's own vnodes while the current
	// occurrence runs on replacements: the next occurrence goes back to
	// them, so that only the affected occurrence is degraded.
	BaseNodes []ExecChunk `json:"base_nodes,omitempty"`

	// Hosts are the hosts of a maintenance reservation (pbs_rsub --hosts).
	Hosts []string `json:"hosts,omitempty"`

	// QmoveJob is the job of a job-specific reservation: moved into it on
	// confirmation (pbs_rsub -W qmove) or when it started (qsub -W
	// create_resv_from_job). ASAP reservations start as soon as they fit.
	QmoveJob string `json:"qmove_job,omitempty"`
	ASAP     bool   `json:"asap,omitempty"`
	// DeleteIdleTime deletes a running reservation that has had no job for
	// that many seconds (delete_idle_time); IdleSince is when it last
	// became empty (0: it has jobs, or was not seen empty yet).
	DeleteIdleTime int64 `json:"delete_idle_time,omitempty"`
	IdleSince      int64 `json:"idle_since,omitempty"`
}

func (e ResvExtra) copy() ResvExtra {
	e.Unavailable = append([]string(nil), e.Unavailable...)
	e.BaseNodes = append([]ExecChunk(nil), e.BaseNodes...)
	e.Hosts = append([]string(nil), e.Hosts...)
	return e
}

// Maintenance reports whether r is a maintenance reservation (M<seq>).
func (r *Reservation) Maintenance() bool { return strings.HasPrefix(r.ID, ResvPrefixMaint) }

// Degraded reports whether r is degraded: state DG before its start,
// substate DG (or IC) while running.
func (r *Reservation) Degraded() bool {
	return r.Gone == 0 && (r.State == ResvDegraded ||
		(r.State == ResvRunning && (r.Substate == ResvDegraded || r.Substate == ResvInConflict)))
}

// Waiting reports whether r is confirmed but not started yet, degraded or
// not: it starts at its start time.
func (r *Reservation) Waiting() bool {
	return r.Gone == 0 && (r.State == ResvConfirmed || r.State == ResvDegraded)
}
