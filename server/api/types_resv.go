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
