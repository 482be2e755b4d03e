package scheduler

import "github.com/strata-hpc/strata/model"

// Soft walltime in the calendar (docs/scheduling.md, "Soft walltime").
//
// A job's soft_walltime is what the calendar plans with: a queued job is
// taken to run for it, a running one to end at its start plus its
// estimated soft walltime, extended by 100% of the soft walltime each time
// it is passed, never beyond walltime (model.ExtendSoftWalltime). The
// cycle records each extension in the plan (estimated.soft_walltime).
// Reservations are protected by the hard limit, as in OpenPBS: their
// confirmation sees running jobs end at walltime (hardEnds), and a job
// whose placement touches a reservation's hold must leave it alone for
// its whole walltime.

// softDuration is the soft walltime the calendar plans a job with (the
// larger of soft_walltime and an earlier estimate, at most walltime), 0
// when the job has none or the cycle plans with hard limits.
func (c *cycle) softDuration(j *model.Job) int64 {
	soft := model.SoftWalltimeOf(j.ResourceList)
	if soft == 0 || c.hardEnds {
		return 0
	}
	d := max(soft, j.EstSoftWalltime())
	if hard := c.walltime(j); hard > 0 && d > hard {
		d = hard
	}
	return d
}

// runningDuration is how long the calendar takes a running job to run in
// all: its extended soft walltime, else its walltime (-1: unknown).
func (c *cycle) runningDuration(j *model.Job) int64 {
	soft := model.SoftWalltimeOf(j.ResourceList)
	if soft == 0 || c.hardEnds {
		return c.duration(j)
	}
	d := model.ExtendSoftWalltime(soft, j.EstSoftWalltime(), c.walltime(j), c.snap.Now-j.Stime)
	return d + c.provDuration(j)
}

// hardDuration is a job's duration by its hard limit, for the windows
// that protect reservations; dur when the job has no soft walltime.
func (c *cycle) hardDuration(j *model.Job, dur int64) int64 {
	if model.SoftWalltimeOf(j.ResourceList) == 0 {
		return dur
	}
	if d := c.walltime(j); d >= 0 {
		return d + c.provDuration(j)
	}
	return -1
}

// windowEnd is the end of the window a job starting now must fit in: its
// (soft) duration, or its hard one when the tentative placement touches a
// vnode a reservation will hold.
func (c *cycle) windowEnd(now, dur int64) int64 {
	if c.hardDur != dur && c.touchesResv() {
		return end(now, c.hardDur)
	}
	return end(now, dur)
}

// touchesResv reports whether the tentative placement uses a vnode with a
// reservation's hold.
func (c *cycle) touchesResv() bool {
	for _, v := range c.touched {
		for i := range c.cal.uses[v] {
			if c.cal.uses[v][i].hold == holdReservation {
				return true
			}
		}
	}
	return false
}

// extendSoftWalltimes adds to the plan the running jobs whose soft
// walltime has been passed since their last estimate.
func (c *cycle) extendSoftWalltimes() {
	now := c.snap.Now
	for _, j := range c.snap.Running {
		soft := model.SoftWalltimeOf(j.ResourceList)
		if soft == 0 || j.State != model.StateRunning || j.Stime == 0 {
			continue
		}
		d := model.ExtendSoftWalltime(soft, j.EstSoftWalltime(), c.walltime(j), now-j.Stime)
		if d > max(soft, j.EstSoftWalltime()) {
			c.plan.SoftWalltimes = append(c.plan.SoftWalltimes, model.SoftWalltime{JobID: j.ID, Seconds: d})
		}
	}
}

// anyUnconfirmed reports whether a reservation waits for confirmation:
// the calendar it is confirmed against holds running jobs until their
// walltime.
func anyUnconfirmed(rs []*model.Reservation) bool {
	for _, r := range rs {
		if r.State == model.ResvUnconfirmed && r.Gone == 0 {
			return true
		}
	}
	return false
}
