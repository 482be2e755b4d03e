package api

// ResvAlterRequest is pbs_ralter. Zero times and nil fields mean "not
// changed". Users and Groups replace Authorized_Users/Authorized_Groups.
type ResvAlterRequest struct {
	Start      int64     `json:"start,omitempty"`
	End        int64     `json:"end,omitempty"`
	Duration   int64     `json:"duration,omitempty"`
	Select     string    `json:"select,omitempty"`
	Name       *string   `json:"name,omitempty"`
	Users      *[]string `json:"users,omitempty"`
	Groups     *[]string `json:"groups,omitempty"`
	MailPoints *string   `json:"mail_points,omitempty"`
	MailUsers  *string   `json:"mail_users,omitempty"`
	// Force is -Wforce (managers only).
	Force bool `json:"force,omitempty"`
}

// ResvAlterResponse is the server's answer: Text is what pbs_ralter
// prints after "pbs_ralter: " ("R12.svr ALTER REQUESTED"); Pending says
// the scheduler has yet to confirm or deny the change.
type ResvAlterResponse struct {
	Text    string `json:"text"`
	Pending bool   `json:"pending,omitempty"`
}
