package scheduler

import (
	"github.com/strata-hpc/strata/model"
)

// considerArray offers an array parent's next queued subjobs, in index
// order, as jobs of the parent's equivalence class: they share the
// parent's select, place and queue, so the class is compiled once and a
// failure ends the array's turn at once. At most max_run_subjobs minus the
// running subjobs are started. Run decisions name the subjob
// (seq[i].server); the server creates its record when it commits the plan.
//
// Only the parent carries comments and estimates, so at most one subjob
// of an array (the next one) is a top job, as in OpenPBS.
func (c *cycle) considerArray(j *model.Job, formula float64) {
	a := j.Array
	room := a.Queued.Count()
	if a.MaxRun > 0 {
		room = min(room, a.MaxRun-a.Running())
	}
	if room <= 0 {
		// Held back by max_run_subjobs, a limit: never a top job and
		// never blocking (see consider).
		c.clearTop(j)
		return
	}
	all := true
	a.Queued.Each(func(o int64) bool {
		if room == 0 {
			return false
		}
		room--
		if !c.considerAs(j, formula, model.SubjobID(j.ID, a.Index(o))) {
			all = false
			return false
		}
		return true
	})
	if all {
		c.clearTop(j) // everything it may start has started
	}
}
