package raftstore

import (
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Job dependencies (qsub -W depend). A job with pending after* dependencies
// is held (H, substate 22, system hold "s"). Each parent's start or end is
// handled in the same transaction that records it, so a dependency can
// never be missed or applied twice.

// resolveDeps checks a new job's dependencies against the state. It
// returns the after* dependencies still pending and the before* ones to
// place on other jobs, or PBSEBadDepend. Nothing is changed here, so a
// refused job leaves no trace.
func (w *writer) resolveDeps(deps []model.Dep) (pending, before []model.Dep, err error) {
	for _, d := range deps {
		p := w.job(d.Job)
		if p == nil {
			return nil, nil, model.Err(model.PBSEBadDepend)
		}
		if strings.HasPrefix(d.Type, "before") {
			if p.IsRunning() || p.IsFinished() {
				return nil, nil, model.Err(model.PBSEBadDepend)
			}
			before = append(before, d)
			continue
		}
		switch done, ok := depOutcome(d.Type, p); {
		case !done:
			pending = append(pending, d)
		case !ok:
			// The parent already ended the wrong way: the job could never
			// run.
			return nil, nil, model.Err(model.PBSEBadDepend)
		}
	}
	return pending, before, nil
}

// depOutcome says whether a dependency on p is decided and, if so, whether
// it is satisfied.
func depOutcome(typ string, p *model.Job) (decided, satisfied bool) {
	ran := p.Exit != nil
	switch {
	case typ == "after" && (p.IsRunning() || p.State == model.StateBegun || ran):
		return true, true
	case typ == "after" && p.IsFinished():
		return true, false
	case !p.IsFinished():
		return false, false
	}
	ok := ran && *p.Exit == 0
	switch typ {
	case "afterok":
		return true, ok
	case "afternotok":
		return true, !ok
	}
	return true, true // afterany
}

// addBefore turns "j before:c" into "c after:j" on c.
func (w *writer) addBefore(j *model.Job, d model.Dep, now int64) {
	c := w.job(d.Job)
	if c == nil {
		return
	}
	c = c.Copy()
	c.SetDeps(append(c.Deps(), model.Dep{Type: "after" + strings.TrimPrefix(d.Type, "before"), Job: j.ID}))
	if !c.IsRunning() {
		c.Hold = addHold(c.Hold, "s")
		evalState(c, now)
	}
	w.note(c, now, "Dependency on job %s added by its submission", j.ID)
	w.putJob(c)
}

// parentChanged settles the dependencies on p after it started or ended:
// a satisfied dependency is dropped (the job is released when none is
// left), an unsatisfiable one deletes the dependent job, which in turn
// settles the jobs that depend on it.
func (w *writer) parentChanged(p *model.Job, now int64) {
	it, _ := w.txn.Get(tableJobs, "dep", p.ID)
	var children []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		children = append(children, raw.(*model.Job))
	}
	sortJobs(children)
	for _, c := range children {
		c = w.job(c.ID) // an earlier iteration may have changed it
		if c == nil || c.IsFinished() {
			continue
		}
		c = c.Copy()
		var keep []model.Dep
		doomed := false
		for _, d := range c.Deps() {
			if d.Job != p.ID {
				keep = append(keep, d)
				continue
			}
			decided, ok := depOutcome(d.Type, p)
			switch {
			case !decided:
				keep = append(keep, d)
			case !ok:
				doomed = true
			}
		}
		if doomed {
			c.SetDeps(nil)
			c.Substate = model.SubTerminated
			c.SetObit(now)
			c.Mtime = now
			c.Comment = "Job deleted as result of dependency on job " + p.ID
			w.note(c, now, "%s", c.Comment)
			w.toHistory(c)
			continue
		}
		if len(keep) == len(c.Deps()) {
			continue
		}
		c.SetDeps(keep)
		if len(keep) == 0 {
			c.Hold = removeHolds(c.Hold, "s")
			evalState(c, now)
			c.Etime = now
			w.note(c, now, "Dependency on job %s satisfied, job released", p.ID)
		}
		c.Mtime = now
		w.putJob(c)
	}
}
