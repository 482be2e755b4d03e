package model

// Reservation alteration (pbs_ralter) and the errors PBS gives for it.
const (
	PBSEBadHost           = 15008 // PBSE_BADHOST
	PBSEResvNotEmpty      = 15178 // PBSE_RESV_NOT_EMPTY
	PBSEStdgResvConflict  = 15179 // PBSE_STDG_RESV_OCCR_CONFLICT
	PBSESelectNotSubset   = 15183 // PBSE_SELECT_NOT_SUBSET
	MsgBadHost            = "Access from host not allowed, or unknown host"
	MsgResvNotEmpty       = "Reservation not empty"
	MsgStdgResvConflict   = "Requested time(s) will interfere with a later occurrence"
	MsgResvAlterDenied    = "Reservation alter denied"
	ResvAlterConfirmed    = "CONFIRMED"
	ResvAlterDenied       = "DENIED"
	DefaultResvMailPoints = "ac"
)

// ResvAlter is a pending alteration: the reservation's values before it,
// restored when the scheduler denies the change (and it was not forced).
type ResvAlter struct {
	State        int               `json:"state"`
	Substate     int               `json:"substate"`
	Start        int64             `json:"start"`
	End          int64             `json:"end"`
	Duration     int64             `json:"duration"`
	ResourceList map[string]string `json:"resource_list"`
	Select       Select            `json:"select"`
	Place        Place             `json:"place"`
	Nodes        []ExecChunk       `json:"nodes,omitempty"`
	Provisioned  bool              `json:"provisioned,omitempty"`
	// Forced is pbs_ralter -Wforce (managers): a refusal by the scheduler
	// applies the new times on the old vnodes instead of reverting.
	Forced bool `json:"forced,omitempty"`
	// Requestor is who asked (user@host), for the log and the mail.
	Requestor string `json:"requestor,omitempty"`
	// OccurrenceDuration is the standing reservation's saved one.
	OccurrenceDuration int64 `json:"occurrence_duration,omitempty"`
}

// copyAlterFields deep-copies what Copy's shallow copy shares.
func (r *Reservation) copyAlterFields() {
	r.AuthorizedGroups = append([]string(nil), r.AuthorizedGroups...)
	r.AuthorizedHosts = append([]string(nil), r.AuthorizedHosts...)
	if r.Alter != nil {
		a := *r.Alter
		a.ResourceList = copyStringMap(a.ResourceList)
		a.Select = append(Select(nil), a.Select...)
		a.Nodes = append([]ExecChunk(nil), a.Nodes...)
		r.Alter = &a
	}
}

// SaveAlter records r's current values as the ones to restore.
func (r *Reservation) SaveAlter(forced bool, requestor string) {
	r.Alter = &ResvAlter{
		State: r.State, Substate: r.Substate, Start: r.Start, End: r.End, Duration: r.Duration,
		ResourceList: copyStringMap(r.ResourceList), Select: append(Select(nil), r.Select...),
		Place: r.Place, Nodes: append([]ExecChunk(nil), r.Nodes...), Provisioned: r.Provisioned,
		Forced: forced, Requestor: requestor, OccurrenceDuration: r.OccurrenceDuration,
	}
}

// RevertAlter puts back the values saved by SaveAlter and clears it.
func (r *Reservation) RevertAlter() {
	a := r.Alter
	if a == nil {
		return
	}
	r.State, r.Substate = a.State, a.Substate
	r.Start, r.End, r.Duration = a.Start, a.End, a.Duration
	r.ResourceList, r.Select, r.Place = a.ResourceList, a.Select, a.Place
	r.Nodes, r.Provisioned = a.Nodes, a.Provisioned
	r.OccurrenceDuration = a.OccurrenceDuration
	r.Alter = nil
}

// LaterDuration is how long the later occurrences of a standing
// reservation last (pbs_ralter changes only the current one).
func (r *Reservation) LaterDuration() int64 {
	if r.OccurrenceDuration > 0 {
		return r.OccurrenceDuration
	}
	return r.Duration
}

// ResvMailPoints is Mail_Points with PBS's default.
func (r *Reservation) ResvMailPoints() string {
	if r.MailPoints == "" {
		return DefaultResvMailPoints
	}
	return r.MailPoints
}

// MsgNoSupport is PBSE_NOSUP's text.
const MsgNoSupport = "No support for requested service"

// MsgSelectNotSubset is PBSE_SELECT_NOT_SUBSET's text.
const MsgSelectNotSubset = "New select must be made up of a subset of the original chunks"

// ExecCovers reports whether the vnodes and amounts of exec hold what the
// jobs use (a shrunk running reservation must keep its jobs' resources).
func ExecCovers(exec []ExecChunk, jobs []*Job) bool {
	have := map[string]map[string]float64{}
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			if have[sh.Vnode] == nil {
				have[sh.Vnode] = map[string]float64{}
			}
			for k, a := range sh.Amounts {
				have[sh.Vnode][k] += a
			}
		}
	}
	for _, j := range jobs {
		for _, ec := range j.Exec {
			for _, sh := range ec.Shares {
				for k, a := range sh.Amounts {
					if a <= 0 {
						continue
					}
					if have[sh.Vnode][k] < a-1e-9 {
						return false
					}
					have[sh.Vnode][k] -= a
				}
			}
		}
	}
	return true
}
