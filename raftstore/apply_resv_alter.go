package raftstore

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// pbs_ralter in the FSM (docs/reservations.md, "Altering a reservation").
// A change of times or request that needs the scheduler puts the
// reservation in RESV_BEING_ALTERED with its old values saved
// (model.ResvAlter); the scheduler's verdict, inside its plan, confirms
// the new values or restores the old ones (alterDecision). Everything
// else (name, ACLs, mail) applies at once.

// alterResv applies a pbs_ralter request.
func (w *writer) alterResv(c *AlterResv) any {
	r := w.resv(c.ID)
	if r == nil || r.Gone != 0 {
		return model.Err(model.PBSEUnknownResvID)
	}
	if c.Abandon {
		return w.abandonAlter(r, c.Now)
	}
	if r.State == model.ResvBeingAltered {
		return model.Err(model.PBSEBadState)
	}
	// What the server checked against its snapshot may have changed since:
	// the reservation may have started, and jobs may have started in it.
	if c.Reconfirm && c.StartChanged && r.State == model.ResvRunning && w.resvHasJobs(r) {
		return &model.PBSError{Code: model.PBSEResvNotEmpty, Msg: model.MsgResvNotEmpty}
	}
	r = r.Copy()
	r.Mtime = c.Now
	if c.Name != nil {
		r.Name = *c.Name
	}
	if c.MailPoints != nil {
		r.MailPoints = *c.MailPoints
	}
	if c.MailUsers != nil {
		r.MailUsers = *c.MailUsers
	}
	acl := false
	if c.Users != nil {
		r.AuthorizedUsers, acl = append([]string(nil), (*c.Users)...), true
	}
	if c.Groups != nil {
		r.AuthorizedGroups, acl = append([]string(nil), (*c.Groups)...), true
	}
	if c.Hosts != nil {
		r.AuthorizedHosts, acl = append([]string(nil), (*c.Hosts)...), true
	}
	if acl {
		w.setResvACLs(r)
	}
	if c.Shrink {
		// Its jobs may have started since the server looked.
		if r.State != model.ResvRunning || !model.ExecCovers(c.Nodes, w.runningInQueue(r.Queue)) {
			return &model.PBSError{Code: model.PBSEResvNotEmpty, Msg: model.MsgResvNotEmpty}
		}
		w.setAlteredValues(r, c)
		r.Nodes = append([]model.ExecChunk(nil), c.Nodes...)
		r.AlterOutcome = model.ResvAlterConfirmed
		r.Comment = fmt.Sprintf("Reservation shrunk to %s at request of %s", r.Select.String(), c.Requestor)
	}
	if c.Reconfirm {
		switch {
		case r.State == model.ResvUnconfirmed:
			// Not confirmed yet: the scheduler judges the new request as it
			// would have judged the old one.
			w.setAlteredValues(r, c)
		case c.Direct:
			w.setAlteredValues(r, c)
			r.AlterOutcome = model.ResvAlterConfirmed
			r.Comment = fmt.Sprintf("Reservation alter forced by %s", c.Requestor)
			w.settleAltered(r, c.Now, true)
		default:
			r.SaveAlter(c.Force, c.Requestor)
			w.setAlteredValues(r, c)
			r.State = model.ResvBeingAltered
			r.AlterOutcome = ""
		}
	}
	w.putResv(r)
	return nil
}

func (w *writer) setAlteredValues(r *model.Reservation, c *AlterResv) {
	if r.Standing() && r.OccurrenceDuration == 0 && c.Duration != r.Duration {
		r.OccurrenceDuration = r.Duration // later occurrences keep it
	}
	r.Start, r.End, r.Duration = c.Start, c.End, c.Duration
	if c.ResourceList != nil {
		r.ResourceList = copyResources(c.ResourceList)
	}
	if c.Select != nil {
		r.Select = append(model.Select(nil), c.Select...)
	}
}

func copyResources(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// runningInQueue returns the running jobs of a queue.
func (w *writer) runningInQueue(queue string) []*model.Job {
	var out []*model.Job
	for _, j := range w.jobsInQueue(queue) {
		if j.IsRunning() {
			out = append(out, j)
		}
	}
	return out
}

// resvHasJobs reports whether unfinished jobs are in r's queue.
func (w *writer) resvHasJobs(r *model.Reservation) bool {
	return len(w.jobsInQueue(r.Queue)) > 0
}

// alterDecision applies the scheduler's verdict on an alteration.
func (w *writer) alterDecision(r *model.Reservation, d model.ResvDecision, now int64) {
	r = r.Copy()
	r.Mtime = now
	a := r.Alter
	startMoved := r.Start != a.Start
	switch {
	case d.Confirm:
		if len(d.Nodes) > 0 {
			r.Nodes = d.Nodes
		}
		r.State, r.Substate = a.State, a.Substate
		r.Alter = nil
		r.AlterOutcome = model.ResvAlterConfirmed
		r.Comment = fmt.Sprintf("Reservation alter confirmed at %s", pbsTime(now))
	case a.Forced:
		// -Wforce: the new times stand on the vnodes it had.
		r.State, r.Substate = a.State, a.Substate
		r.Alter = nil
		r.AlterOutcome = model.ResvAlterConfirmed
		r.Comment = fmt.Sprintf("Reservation alter forced by %s (%s)", a.Requestor, d.Reason)
	default:
		r.RevertAlter()
		r.AlterOutcome = model.ResvAlterDenied
		r.Comment = model.MsgResvAlterDenied + ": " + d.Reason
		startMoved = false
	}
	w.settleAltered(r, now, startMoved)
	w.putResv(r)
}

// settleAltered puts an altered reservation in the state its new times
// call for: a running one whose start moved into the future is confirmed
// again (its queue stopped, as PBS does), and an AOE reservation whose
// start moved is provisioned again before the new start.
func (w *writer) settleAltered(r *model.Reservation, now int64, startMoved bool) {
	if r.State == model.ResvRunning && r.Start > now {
		r.State, r.Substate = model.ResvConfirmed, model.ResvConfirmed
		w.setResvQueue(r.Queue, true, false, false)
	}
	if startMoved && r.AOE != "" && r.State == model.ResvConfirmed {
		r.Provisioned = false
	}
}

// setResvACLs writes a reservation's Authorized_Users, Authorized_Groups
// and Authorized_Hosts into its queue's acl_users, acl_groups and
// acl_hosts (each enabled when set; users always are).
func (w *writer) setResvACLs(r *model.Reservation) {
	m := w.meta()
	q, ok := m.Config.Queues[r.Queue]
	if !ok {
		return
	}
	m.Config = m.Config.Copy()
	q = q.Copy()
	q.ACLUserEnable = true
	q.ACLUsers = append([]string(nil), r.AuthorizedUsers...)
	q.ACLGroupEnable = len(r.AuthorizedGroups) > 0
	q.ACLGroups = append([]string(nil), r.AuthorizedGroups...)
	q.ACLHostEnable = len(r.AuthorizedHosts) > 0
	q.ACLHosts = append([]string(nil), r.AuthorizedHosts...)
	m.Config.Queues[r.Queue] = q
	w.putMeta(m)
}

// abandonAlter restores a reservation whose alteration was still pending
// when its old or new end came (no scheduler decided it), so that it ends
// as it was; anything else is left alone (a late or repeated proposal).
func (w *writer) abandonAlter(r *model.Reservation, now int64) any {
	if r.State != model.ResvBeingAltered || r.Alter == nil || now < min(r.End, r.Alter.End) {
		return nil
	}
	r = r.Copy()
	r.RevertAlter()
	r.Mtime = now
	r.AlterOutcome = model.ResvAlterDenied
	r.Comment = model.MsgResvAlterDenied + ": its end came before the scheduler decided"
	w.putResv(r)
	return nil
}
