package scheduler

import (
	"github.com/strata-hpc/strata/model"
)

// Reservations being altered (pbs_ralter, state RESV_BEING_ALTERED) are
// decided before new ones, with the same rules as a new reservation
// (docs/reservations.md):
//
//   - a confirmed one keeps its vnodes when they are free over the new
//     window (with the new request), else is confirmed anywhere it fits,
//     as a new reservation would be;
//   - a running one keeps its vnodes (its jobs run there): shortening it
//     needs nothing, extending it needs its vnodes free of others from
//     its old end to its new end, besides what its own jobs use;
//   - a refused change leaves it as it was (its old values are held in
//     this cycle, so nothing takes its vnodes), a forced one (-Wforce)
//     keeps the new times on the old vnodes.

const msgAlterNoRoom = "Insufficient resources to extend the running reservation"

// alteredResvs are the reservations waiting for a verdict on a change.
func (c *cycle) alteredResvs() []*model.Reservation {
	var out []*model.Reservation
	for _, r := range c.snap.Reservations {
		if r.State == model.ResvBeingAltered && r.Gone == 0 && r.Alter != nil {
			out = append(out, r)
		}
	}
	return out
}

// decideAlters adds a verdict per altered reservation to the plan and
// holds each as it will be (new or old values) in this cycle's calendar;
// it returns those holds for the calendar rebuilt after confirmation.
func (c *cycle) decideAlters(altered []*model.Reservation, startedIn []started) []*model.Reservation {
	var holds []*model.Reservation
	for _, r := range altered {
		d, ok, held := c.decideAlter(r, startedIn)
		c.plan.Resvs = append(c.plan.Resvs, d)
		h := r.Copy()
		switch {
		case ok:
			h.State, h.Substate = r.Alter.State, r.Alter.Substate
			if len(d.Nodes) > 0 {
				h.Nodes = d.Nodes
			}
		case r.Alter.Forced:
			h.State, h.Substate = r.Alter.State, r.Alter.Substate
		default:
			h.RevertAlter()
		}
		h.Alter = nil
		if !held {
			// As it will be, current and later occurrences, so that the
			// reservations decided next in this cycle see it.
			c.holdResv(h, startedIn)
		}
		holds = append(holds, h)
	}
	return holds
}

// decideAlter is the verdict on one alteration; ok says it was confirmed,
// held that its new hold is already in the calendar (confirm's).
func (c *cycle) decideAlter(r *model.Reservation, startedIn []started) (d model.ResvDecision, ok, held bool) {
	a := r.Alter
	now := c.snap.Now
	deny := func(why string) (model.ResvDecision, bool, bool) {
		return model.ResvDecision{ID: r.ID, Reason: resvFailPrefix + why}, false, false
	}
	if r.End <= now {
		return deny(msgResvPast)
	}
	cl := c.resvClass(r)
	if msg, never := c.neverRun(cl); never {
		return deny(msgResvNeverFit + msg)
	}
	sameSelect := r.Select.String() == a.Select.String()
	if a.State == model.ResvRunning && sameSelect && r.Start == a.Start {
		if r.End <= a.End {
			return model.ResvDecision{ID: r.ID, Confirm: true}, true, false // shortened
		}
		held := r.Copy()
		held.State, held.Nodes = model.ResvRunning, a.Nodes
		exec, ok := c.knownExec(a.Nodes)
		if !ok {
			return deny(msgAlterNoRoom)
		}
		exec = nonZero(c.remaining(held, exec, startedIn))
		if _, fits := c.planFits(exec, max(now, a.End), r.End, false); len(exec) > 0 && !fits {
			return deny(msgAlterNoRoom)
		}
		return model.ResvDecision{ID: r.ID, Confirm: true}, true, false
	}
	t := max(now, r.Start-c.lead(r))
	if sameSelect && len(a.Nodes) > 0 {
		if exec, ok := c.knownExec(a.Nodes); ok {
			if _, fits := c.planFits(exec, t, r.End, cl.excl); fits {
				return model.ResvDecision{ID: r.ID, Confirm: true, Nodes: a.Nodes}, true, false
			}
		}
	}
	nr := r.Copy()
	nr.Occurrences = nil
	if r.Standing() && r.Index > 0 && r.Index <= len(r.Occurrences) {
		// The altered current occurrence, then the later ones, all on
		// the vnodes found (confirm checks and holds them).
		nr.Occurrences = append([]int64{r.Start}, r.Occurrences[r.Index:]...)
	}
	d = c.confirm(nr)
	return d, d.Confirm, d.Confirm
}

// nonZero drops the shares (and chunks) that hold nothing.
func nonZero(exec []model.ExecChunk) []model.ExecChunk {
	var out []model.ExecChunk
	for _, ec := range exec {
		nc := model.ExecChunk{MPIProcs: ec.MPIProcs}
		for _, sh := range ec.Shares {
			for _, a := range sh.Amounts {
				if a > 0 {
					nc.Shares = append(nc.Shares, sh)
					break
				}
			}
		}
		if len(nc.Shares) > 0 {
			out = append(out, nc)
		}
	}
	return out
}
