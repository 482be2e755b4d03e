package raftstore

import (
	"strconv"

	"github.com/strata-hpc/strata/model"
)

// Job arrays. A parent (seq[].server) is one record whatever its size: its
// subjobs are ordinals in ArrayState's run-length sets until the scheduler
// starts one, and only then does the subjob (seq[i].server) get a record of
// its own, made from the parent in the same transaction that starts it.
// Every subjob that ends comes back to the parent, which finishes (F) when
// the last one is done.

// initArray gives a new parent its subjob state: every index queued.
func initArray(j *model.Job) {
	a := j.Array.Copy()
	a.Queued = model.IndexSet{{Lo: 0, Hi: a.Size() - 1}}
	a.Done = nil
	a.NonZero = false
	j.Array = a
}

// schedulable reports whether the scheduler may act on j: a queued job, or
// an array parent that has begun and may still have queued subjobs.
func schedulable(j *model.Job) bool {
	return j.State == model.StateQueued || (j.Array != nil && j.State == model.StateBegun)
}

// pendingSubjob returns the record a queued subjob gets when it starts, and
// its parent; nil when id names no queued subjob of a schedulable parent or
// the parent's max_run_subjobs is reached.
func (w *writer) pendingSubjob(id string) (*model.Job, *model.Job) {
	pid, inside, ok := model.SplitArrayID(id)
	if !ok || inside == "" {
		return nil, nil
	}
	p := w.job(pid)
	if p == nil || p.Array == nil || !schedulable(p) {
		return nil, nil
	}
	idx, err := strconv.ParseInt(inside, 10, 64)
	if err != nil {
		return nil, nil
	}
	o, ok := p.Array.Ordinal(idx)
	if !ok || !p.Array.Queued.Contains(o) {
		return nil, nil
	}
	if p.Array.MaxRun > 0 && p.Array.Running() >= p.Array.MaxRun {
		return nil, nil
	}
	return p.NewSubjob(idx), p
}

// subjobStarted takes a started subjob's index out of the parent's queued
// set; the parent becomes B.
func (w *writer) subjobStarted(p, sub *model.Job, now int64) {
	p = w.job(p.ID).Copy()
	o, _ := p.Array.Ordinal(sub.ArrayIndex())
	p.Array.Queued = p.Array.Queued.Remove(o, o)
	if p.Stime == 0 {
		p.Stime = now
	}
	p.Mtime = now
	was := p.State
	evalState(p, now)
	if p.State != was {
		w.note(p, now, "Job state %s, substate %d: subjob %s started", p.State, p.Substate, sub.ID)
	}
	w.putJob(p)
	if p.State != was {
		w.parentChanged(p, now) // "after" dependents of the array
	}
}

// subjobEnded records a finished (or deleted) subjob in its parent.
func (w *writer) subjobEnded(sub *model.Job, now int64) {
	p := w.job(sub.ArrayID())
	if p == nil || p.Array == nil || p.IsFinished() {
		return
	}
	o, ok := p.Array.Ordinal(sub.ArrayIndex())
	if !ok {
		return
	}
	p = p.Copy()
	p.Array.Queued = p.Array.Queued.Remove(o, o)
	p.Array.Done = p.Array.Done.Add(o, o)
	if sub.Exit != nil && *sub.Exit != 0 {
		p.Array.NonZero = true
	}
	w.settleArray(p, now)
}

// settleArray stores a parent (a copy) whose subjob sets changed. When
// every subjob is done the parent finishes: Exit_status 0 when all subjobs
// exited 0, 1 otherwise.
func (w *writer) settleArray(p *model.Job, now int64) {
	p.Mtime = now
	if !p.Array.Complete() {
		if !p.IsRunning() {
			evalState(p, now)
		}
		w.putJob(p)
		return
	}
	exit := 0
	if p.Array.NonZero {
		exit = 1
	}
	p.Exit = &exit
	p.SetObit(now)
	p.Substate = model.SubFinished
	if p.Deleter() != "" {
		p.Substate = model.SubTerminated
	}
	w.note(p, now, "Array job finished, Exit_status=%d", exit)
	w.toHistory(p)
}

// subjobRows lists the records of an array's subjobs: rows of the ones
// that have not finished and the compact records of the others.
func (w *writer) subjobRows(parentID string) []*model.Job {
	it, _ := w.txn.Get(tableJobs, "array", parentID)
	var out []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Job))
	}
	out = append(out, finishedSubjobsOf(w.txn, parentID)...)
	sortJobs(out)
	return out
}

// deleteArrayID handles qdel of an id with brackets: a whole array, a
// subjob that has no record yet (queued) or a range. handled is false when
// the id is an ordinary subjob record, which qdel treats as any job.
func (w *writer) deleteArrayID(c *DeleteJob) (result any, handled bool) {
	pid, inside, ok := model.SplitArrayID(c.JobID)
	if !ok {
		return nil, false
	}
	if inside != "" && w.job(c.JobID) != nil {
		return nil, false // a subjob record
	}
	p := w.job(pid)
	if p == nil || p.Array == nil {
		return model.Err(model.PBSEUnknownJobID), true
	}
	if p.IsFinished() {
		if !c.Purge {
			return model.Err(model.PBSEHistJobID), true
		}
		if inside != "" {
			return nil, true // a subjob without a record has no history to purge
		}
		for _, s := range w.subjobRows(pid) {
			w.deleteJobRow(s)
		}
		w.deleteJobRow(p)
		return nil, true
	}
	var from, to, step int64
	if inside == "" {
		from, to, step = p.Array.Start, p.Array.End, 1
	} else {
		var err error
		if from, to, step, err = model.ParseIndexRange(inside); err != nil {
			return model.Err(model.PBSEUnknownJobID), true
		}
	}
	// Only what the array holds is visited: the range from the request
	// is intersected with the array's ordinals, never walked itself.
	a := p.Array
	matched := a.AnyInRange(from, to, step)
	drop := a.StepOrdinals(a.Queued, from, to, step)
	var rows []*model.Job
	it, _ := w.txn.Get(tableJobs, "array", pid) // finished ones are compact records, skipped anyway
	var live []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		live = append(live, raw.(*model.Job))
	}
	sortJobs(live)
	for _, s := range live {
		if s.IsFinished() || s.ArrayIndex() < from || s.ArrayIndex() > to || (s.ArrayIndex()-from)%step != 0 {
			continue
		}
		rows = append(rows, s)
	}
	if inside != "" && len(drop) == 0 && len(rows) == 0 {
		if matched && from == to {
			return model.Err(model.PBSEHistJobID), true
		}
		if !matched {
			return model.Err(model.PBSEUnknownJobID), true
		}
	}
	p = p.Copy()
	for _, sp := range drop {
		p.Array.Queued = p.Array.Queued.Remove(sp.Lo, sp.Hi)
	}
	p.Array.Done = p.Array.Done.AddSet(drop)
	if inside == "" {
		p.SetDeleter(c.Requestor)
		w.note(p, c.Now, "Job deleted at request of %s", c.Requestor)
		w.acctDeleted(p.ID, c.Requestor, c.Now)
	} else if len(drop) > 0 {
		w.note(p, c.Now, "Subjobs %s deleted at request of %s", p.Array.Indices(drop), c.Requestor)
	}
	w.putJob(p)
	for _, s := range rows {
		w.deleteJob(&DeleteJob{JobID: s.ID, Requestor: c.Requestor, Force: c.Force, Now: c.Now})
	}
	if p = w.job(pid); p != nil && !p.IsFinished() {
		w.settleArray(p.Copy(), c.Now)
	}
	return nil, true
}
