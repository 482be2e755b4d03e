package scheduler

import (
	"slices"

	"github.com/strata-hpc/strata/model"
)

// confirmASAP confirms an ASAP reservation (pbs_rsub -W qmove=<job>): it
// starts as soon as its request fits for its whole duration. The
// candidate starts are now and every time the calendar frees something
// (running jobs' ends, other reservations' ends), earliest first.
func (c *cycle) confirmASAP(r *model.Reservation) model.ResvDecision {
	now := c.snap.Now
	cl := c.resvClass(r)
	if msg, never := c.neverRun(cl); never {
		return model.ResvDecision{ID: r.ID, Reason: resvFailPrefix + msgResvNeverFit + msg}
	}
	times := []int64{now}
	for _, t := range c.cal.profile().ts {
		if t > now && t != forever {
			times = append(times, t)
		}
	}
	for _, o := range c.snap.Reservations {
		if o.Active() && o.End > now {
			times = append(times, o.End)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	for _, t := range times {
		start := t + c.lead(r)
		exec, ok := c.tryAt(cl, t, start+r.Duration)
		if !ok {
			continue
		}
		if r.AOE != "" {
			for i := range exec {
				for k := range exec[i].Shares {
					exec[i].Shares[k].AOE = r.AOE
				}
			}
		}
		c.cal.addHold(c.st, holdReservation, exec, t, start+r.Duration, cl.excl)
		return model.ResvDecision{ID: r.ID, Confirm: true, Nodes: exec, Start: start}
	}
	return model.ResvDecision{ID: r.ID, Reason: resvFailPrefix + msgResvNoFit}
}
