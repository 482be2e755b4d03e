package api

import "github.com/strata-hpc/strata/model"

// ResvSubmitRequest carries a new reservation (pbs_rsub). Times are Unix
// seconds; 0 means "not given". The server derives the missing one of
// start, end and duration (a walltime in Resources may stand in for the
// duration) and fills in the owner from the authenticated peer.
type ResvSubmitRequest struct {
	Token     string            `json:"token"`
	Name      string            `json:"name,omitempty"`
	Start     int64             `json:"start,omitempty"`
	End       int64             `json:"end,omitempty"`
	Duration  int64             `json:"duration,omitempty"`
	Resources map[string]string `json:"resources,omitempty"`
	// Users is -U: "[+|-]user[@host]" entries.
	Users      []string `json:"users,omitempty"`
	RRule      string   `json:"rrule,omitempty"`
	TZ         string   `json:"tz,omitempty"` // PBS_TZID, needed with RRule
	SubmitHost string   `json:"submit_host,omitempty"`
	// Groups (-G) and Hosts (-H) are "[+|-]name" entries; MailPoints (-m)
	// and MailUsers (-M) say who is mailed when (docs/reservations.md).
	Groups     []string `json:"groups,omitempty"`
	Hosts      []string `json:"hosts,omitempty"`
	MailPoints string   `json:"mail_points,omitempty"`
	MailUsers  string   `json:"mail_users,omitempty"`
	// MaintHosts is pbs_rsub --hosts: a maintenance reservation (managers).
	MaintHosts []string `json:"maint_hosts,omitempty"`
	// Qmove is -W qmove=<job>: an ASAP reservation for a queued job.
	Qmove string `json:"qmove,omitempty"`
	// Job is pbs_rsub --job: a reservation of a running job's vnodes.
	Job string `json:"job,omitempty"`
	// DeleteIdleTime is -W delete_idle_time (seconds).
	DeleteIdleTime int64 `json:"delete_idle_time,omitempty"`
}

// ResvSubmitResponse names the new reservation.
type ResvSubmitResponse struct {
	ID string `json:"id"`
}

// ResvInfo is one reservation as pbs_rstat shows it.
type ResvInfo struct {
	*model.Reservation
	// ResvNodes is resv_nodes formatted by the server (it knows the
	// resource types).
	ResvNodes string `json:"resv_nodes,omitempty"`
}

// ResvsResponse lists reservations.
type ResvsResponse struct {
	Resvs []ResvInfo `json:"resvs"`
}
