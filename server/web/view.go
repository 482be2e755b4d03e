package web

import (
	"sort"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// maxJobs bounds the jobs one answer lists (the page polls it): the
// running ones and the queued ones that start soonest come first; counts
// cover all of them.
const maxJobs = 500

// Overview is GET /ui/api/state: everything the page draws, from one
// snapshot. Fields that name jobs or users are empty without a session.
type Overview struct {
	Server string `json:"server"`
	Leader bool   `json:"leader"`
	Now    int64  `json:"now"`
	// Viewer is the logged-in user, nil when anonymous.
	Viewer  *Viewer `json:"viewer,omitempty"`
	Expires int64   `json:"session_expires,omitempty"`
	// SeeAll is set when the viewer sees every job (query_other_jobs or
	// operator rights), not only their own.
	SeeAll       bool                 `json:"see_all,omitempty"`
	Counts       map[string]int       `json:"counts"`
	Queues       []api.QueueInfo      `json:"queues"`
	Nodes        []NodeTile           `json:"nodes"`
	Jobs         []JobRow             `json:"jobs,omitempty"`
	JobsOmitted  int                  `json:"jobs_omitted,omitempty"`
	Reservations []ResvSpan           `json:"reservations"`
	Provision    *api.ProvisionStatus `json:"provision"`
}

// NodeTile is one vnode on the map: pbsnodes' state and current_aoe,
// its CPUs, and the provisioning operation on its host if any.
type NodeTile struct {
	Name      string    `json:"name"`
	Host      string    `json:"host"`
	State     string    `json:"state"`
	AOE       string    `json:"current_aoe"`
	NCPUs     float64   `json:"ncpus"`
	CPUsUsed  float64   `json:"ncpus_assigned"`
	Comment   string    `json:"comment,omitempty"`
	Jobs      []string  `json:"jobs,omitempty"`
	Provision *NodeProv `json:"provision,omitempty"`
}

// NodeProv is the provisioning of a vnode's host: to which AOE, in which
// phase, since when, and how long the scheduler expects it to take (the
// page draws the progress from these).
type NodeProv struct {
	AOE          string `json:"aoe"`
	State        string `json:"state"`
	Queued       int64  `json:"queued"`
	Started      int64  `json:"started,omitempty"`
	EstimateSecs int64  `json:"estimate_secs"`
}

// JobRow is one job in the queue view and its timeline: when it started
// or is estimated to start, and its walltime.
type JobRow struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	User      string `json:"user"`
	Queue     string `json:"queue"`
	State     string `json:"state"`
	Start     int64  `json:"start,omitempty"`
	Estimated bool   `json:"estimated,omitempty"`
	TopJob    bool   `json:"topjob,omitempty"`
	Walltime  int64  `json:"walltime,omitempty"`
	NCPUs     string `json:"ncpus,omitempty"`
	Comment   string `json:"comment,omitempty"`
}

// ResvSpan is one reservation on the calendar. Name and owner only with a
// session.
type ResvSpan struct {
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Owner  string `json:"owner,omitempty"`
	State  string `json:"state"`
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Vnodes int    `json:"vnodes"`
	AOE    string `json:"aoe,omitempty"`
}

func (h *Handler) overview(snap *raftstore.StateSnapshot, v *Viewer, exp time.Time) *Overview {
	cfg := snap.Config()
	info := h.d.ServerInfo(snap)
	prov := h.d.Provision(snap)
	o := &Overview{Server: info.Name, Leader: info.Leader, Now: h.d.Now().Unix(), Counts: info.StateCount, Queues: info.Queues}
	visible := func(*model.Job) bool { return false }
	if v != nil {
		o.Viewer, o.Expires = v, exp.Unix()
		o.SeeAll = h.d.SeeAll(v, &cfg)
		visible = func(j *model.Job) bool { return o.SeeAll || j.User == v.User }
	}
	o.Nodes = nodeTiles(snap, prov, visible)
	if v != nil {
		o.Jobs, o.JobsOmitted = jobRows(snap, visible)
	}
	o.Reservations = resvSpans(snap, v != nil)
	// Operations name the job that waits for them: only a viewer who may
	// see that job learns its id.
	if prov != nil {
		for i, op := range prov.Ops {
			if op.JobID == "" {
				continue
			}
			if j := snap.Job(op.JobID); j == nil || !visible(j) {
				c := *op
				c.JobID = ""
				prov.Ops[i] = &c
			}
		}
	}
	o.Provision = prov
	return o
}

func nodeTiles(snap *raftstore.StateSnapshot, prov *api.ProvisionStatus, visible func(*model.Job) bool) []NodeTile {
	ops := map[string]*model.ProvOp{}
	est := map[string]int64{}
	if prov != nil {
		for _, op := range prov.Ops {
			ops[op.Host] = op
		}
		for _, a := range prov.PerAOE {
			est[a.AOE] = a.EstimateSecs
		}
	}
	vnodes := snap.Vnodes()
	tiles := make([]NodeTile, 0, len(vnodes))
	for _, vn := range vnodes {
		t := NodeTile{Name: vn.Name, Host: vn.Host, State: vn.State.String(), AOE: vn.CurrentAOE,
			NCPUs: vn.Capacity["ncpus"], CPUsUsed: vn.Assigned["ncpus"], Comment: vn.Comment}
		for _, id := range model.SortedKeys(vn.Jobs) {
			if j := snap.Job(id); j != nil && visible(j) {
				t.Jobs = append(t.Jobs, id)
			}
		}
		if op := ops[vn.Host]; op != nil {
			t.Provision = &NodeProv{AOE: op.AOE, State: op.State, Queued: op.Queued, Started: op.Started, EstimateSecs: est[op.AOE]}
		}
		tiles = append(tiles, t)
	}
	sort.Slice(tiles, func(i, j int) bool { return tiles[i].Name < tiles[j].Name })
	return tiles
}

// jobRows lists the unfinished jobs visible to the viewer as qstat does
// (array parents, not subjobs): running first by start, then queued by
// estimated start (unestimated last), each group in job order.
func jobRows(snap *raftstore.StateSnapshot, visible func(*model.Job) bool) ([]JobRow, int) {
	var rows []JobRow
	for _, j := range snap.Jobs() {
		if j.IsSubjob() || j.IsFinished() || !visible(j) {
			continue
		}
		r := JobRow{ID: j.ID, Name: j.Name, User: j.User, Queue: j.Queue, State: j.State,
			TopJob: j.TopJob(), NCPUs: j.ResourceList["ncpus"], Comment: j.Comment}
		if w, err := model.ParseDuration(j.ResourceList["walltime"]); err == nil {
			r.Walltime = w
		}
		if j.Stime > 0 && (j.State == "R" || j.State == "E" || j.State == "B") {
			r.Start = j.Stime
		} else if j.EstStart() > 0 {
			r.Start, r.Estimated = j.EstStart(), true
		}
		rows = append(rows, r)
	}
	rank := func(r *JobRow) int {
		switch {
		case r.Start > 0 && !r.Estimated:
			return 0
		case r.Start > 0:
			return 1
		}
		return 2
	}
	sort.SliceStable(rows, func(a, b int) bool {
		ra, rb := rank(&rows[a]), rank(&rows[b])
		if ra != rb {
			return ra < rb
		}
		return rows[a].Start < rows[b].Start
	})
	if len(rows) > maxJobs {
		return rows[:maxJobs], len(rows) - maxJobs
	}
	return rows, 0
}

func resvSpans(snap *raftstore.StateSnapshot, named bool) []ResvSpan {
	var out []ResvSpan
	for _, r := range snap.Reservations() {
		s := ResvSpan{ID: r.ID, State: model.ResvStateLong(r.State), Start: r.Start, End: r.End, AOE: r.AOE}
		s.Vnodes = len(r.ResvVnodes())
		if named {
			s.Name, s.Owner = r.Name, r.Owner
		}
		out = append(out, s)
	}
	return out
}
