package scheduler

import (
	"github.com/strata-hpc/strata/model"
)

// Comments of the job-order policy, as OpenPBS words them.
const (
	msgStrictOrder = "Job would break strict sorted order"
	msgConflict    = "Job would conflict with reservation or top job"
	msgThreshold   = "Job is under job_sort_formula threshold value"
)

// consider tries to run one job and, when it cannot, records its comment
// and, under strict ordering, makes it a top job or lets it block.
//
// What may make a job a top job: only that it does not fit (resources now,
// or a conflict with the calendar). Jobs held back by policy (the formula
// threshold, strict order, and later limits such as max_run, which hold
// the job whatever resources are free) are skipped before that point: they
// never become top jobs, never block others and get no estimate, unlike
// OpenPBS (issue #2518's estimate in the year 13429). Held jobs and jobs
// waiting on dependencies are not in state Q and never reach here.
func (c *cycle) consider(j *model.Job, formula float64) {
	c.considerAs(j, formula, j.ID)
}

// considerAs is consider with the id a run decision names: j's own, or a
// subjob of array parent j (see array.go). Comments and estimates always
// go to j. It reports whether the job was started.
func (c *cycle) considerAs(j *model.Job, formula float64, runID string) bool {
	cfg := &c.snap.Config
	if cfg.StrictOrdering && (c.blockAll || c.blockQ[j.Queue]) {
		c.comment(j, prefixNotRunning+msgStrictOrder, false)
		c.clearTop(j)
		return false
	}
	if cfg.JobSortFormula != nil && cfg.FormulaThreshold != nil && formula <= *cfg.FormulaThreshold {
		c.comment(j, prefixNotRunning+msgThreshold, false)
		c.clearTop(j)
		return false
	}
	// Seam for limits (max_run and friends): a limited job gets its
	// comment here and returns, exactly like the threshold above.

	c.keyBuf = appendClassKey(c.keyBuf[:0], j)
	cl, ok := c.classes[string(c.keyBuf)] // no allocation for a lookup
	if !ok {
		key := string(c.keyBuf)
		cl = c.compileClass(key, j)
		c.classes[key] = cl
	}
	// The walltime is only read when it can matter: to start the job (the
	// calendar needs its end) or to plan it.
	var dur int64
	known := false
	v := noFit
	if !cl.failed {
		if cfg.StrictOrdering || c.cal != nil { // c.cal: reservations hold vnodes (resv.go)
			dur, known = c.duration(j), true
			c.hardDur = c.hardDuration(j, dur) // soft walltime hook point (softwall.go)
		}
		var exec []model.ExecChunk
		exec, v = c.runProv(cl, dur) // provisioning hook point (aoe_lookahead.go)
		if v == ran {
			c.markProvision(j, cl, exec) // provisioning hook point (aoe.go)
			c.plan.Runs = append(c.plan.Runs, model.RunDecision{JobID: runID, Exec: exec, Exclusive: cl.excl})
			return true
		}
		if v == noFit {
			if handled, ok := c.preemptFor(j, cl, runID); handled { // preemption hook point (preempt_cycle.go)
				return ok
			}
			cl.failed = true
			cl.comment, cl.neverRun = c.explain(cl)
		}
	}
	text, never := cl.comment, cl.neverRun
	if v == conflicts {
		text, never = prefixNotRunning+msgConflict, false
	}
	if v == waitAOE {
		text, never = cl.waitComment, false
	}
	c.comment(j, text, never)
	if !cfg.StrictOrdering || never {
		c.clearTop(j)
		return false
	}
	depth, own := c.depth(j.Queue)
	if depth == 0 {
		// Backfill off: nothing after this job may start (in its queue
		// when the queue set its own backfill_depth 0).
		if own {
			if c.blockQ == nil {
				c.blockQ = map[string]bool{}
			}
			c.blockQ[j.Queue] = true
		} else {
			c.blockAll = true
		}
		c.clearTop(j)
		return false
	}
	if c.topCount(j.Queue, own) >= depth {
		c.clearTop(j) // slots used up: neither protected nor blocking
		return false
	}
	if !known {
		dur = c.duration(j)
	}
	est, ok := c.estimateProv(j, cl, dur, v == waitAOE && cl.waitOnAOE) // provisioning hook point (aoe_lookahead.go)
	if !ok {
		// No start found (e.g. it needs vnodes held for ever): like
		// OpenPBS, it takes no slot.
		c.clearTop(j)
		return false
	}
	if own {
		if c.topQueue == nil {
			c.topQueue = map[string]int{}
		}
		c.topQueue[j.Queue]++
	} else {
		c.topAll++
	}
	c.setEstimate(j, est)
	return false
}

// comment records a job's comment when it changed (always for never-run,
// so the server records the epoch).
func (c *cycle) comment(j *model.Job, text string, never bool) {
	text, never = c.provComment(j, text, never) // provisioning hook point (aoe.go)
	if never || text != j.Comment {
		c.plan.Comments = append(c.plan.Comments, model.JobComment{JobID: j.ID, Comment: text, NeverRun: never})
	}
}

// depth returns the backfill_depth that applies to a queue's jobs and
// whether it is the queue's own (counted per queue) or the server's.
func (c *cycle) depth(queue string) (int, bool) {
	if q, ok := c.snap.Queues[queue]; ok && q.BackfillDepth != nil {
		return max(0, *q.BackfillDepth), true
	}
	return max(0, c.snap.Config.BackfillDepth), false
}

func (c *cycle) topCount(queue string, own bool) int {
	if own {
		return c.topQueue[queue]
	}
	return c.topAll
}

// duration is the walltime the calendar assumes for j, in seconds: its
// Resource_List.walltime, else its queue's default, else the server's;
// -1 when none is known.
func (c *cycle) duration(j *model.Job) int64 {
	if d := c.softDuration(j); d > 0 { // soft walltime hook point (softwall.go)
		return d + c.provDuration(j)
	}
	if d := c.walltime(j); d >= 0 {
		return d + c.provDuration(j) // provisioning hook point (aoe.go)
	}
	return -1
}

func (c *cycle) walltime(j *model.Job) int64 {
	if s, ok := j.ResourceList["walltime"]; ok {
		if d, err := model.ParseDuration(s); err == nil && d >= 0 {
			return d
		}
	}
	if q, ok := c.snap.Queues[j.Queue]; ok && q.DefaultWalltime > 0 {
		return q.DefaultWalltime
	}
	if d := c.snap.Config.DefaultWalltime; d > 0 {
		return d
	}
	return -1
}

// runningEnd is when a running job will have given its vnodes back: start
// plus walltime. A job already past it is about to be killed and is taken
// to end in a second, as in OpenPBS.
func (c *cycle) runningEnd(j *model.Job) int64 {
	dur := c.runningDuration(j)
	if dur < 0 {
		return forever
	}
	e := end(j.Stime, dur)
	if e <= c.snap.Now {
		e = c.snap.Now + 1
	}
	return e
}

// estimate finds when a top job can start and on which vnodes, and holds
// them in the calendar for later jobs of the cycle.
//
// The previous estimate is kept, not rebuilt from nothing: if last cycle's
// plan still fits the calendar (which holds only running jobs and higher
// top jobs, since lower jobs are considered later and never start in
// conflict with the plan), the job keeps its vnodes and its start, unless
// the search finds an earlier start. So lower-priority work can never
// move a top job's start later; only higher-priority jobs, vnodes going
// away or running jobs overrunning their walltime can.
func (c *cycle) estimate(j *model.Job, cl *class, dur int64) (model.JobEstimate, bool) {
	if c.cal == nil {
		c.cal = c.newCalendar()
	}
	now := c.snap.Now
	keep := int64(forever)
	var keepRows []planRow
	if slot := j.EstStart() - c.provShift(j, j.EstExec()); j.TopJob() && slot > now && len(j.EstExec()) > 0 {
		var ok bool
		if keepRows, ok = c.planFits(j.EstExec(), slot, end(slot, dur), cl.excl); ok {
			keep = slot
		}
	}
	p := c.cal.profile()
	if !c.anyEligible(cl) {
		return model.JobEstimate{}, false // a chunk only fits vnodes that take no jobs
	}
	fitTo := 0 // steps [i, fitTo) are known to have the job's total free
	for i := 1; i < len(p.ts) && p.ts[i] < keep; i++ {
		t := p.ts[i]
		u := end(t, dur)
		k, ok := p.fitsFrom(max(i, fitTo), u, cl.need)
		if !ok {
			i = k // not enough in the whole cluster at step k
			continue
		}
		fitTo = k
		if cl.excl && !c.cal.unusedFits(c.st, t, cl.need) {
			continue // not enough on vnodes that nothing uses by then
		}
		if f, ok := cl.tryFail[t]; ok && u >= f {
			continue // failed earlier this cycle in a window no longer
		}
		if exec, ok := c.tryAt(cl, t, u); ok {
			c.cal.addHold(c.st, holdTopJob, exec, t, u, cl.excl)
			return model.JobEstimate{JobID: j.ID, Start: t + c.provShift(j, exec), Exec: exec, Top: true}, true
		}
		if cl.tryFail == nil {
			cl.tryFail = map[int64]int64{}
		}
		if f, ok := cl.tryFail[t]; !ok || u < f {
			cl.tryFail[t] = u
		}
	}
	if keep == forever {
		return model.JobEstimate{}, false
	}
	c.cal.addHoldRows(keepRows, keep, end(keep, dur), cl.excl)
	return model.JobEstimate{JobID: j.ID, Start: keep + c.provShift(j, j.EstExec()), Exec: j.EstExec(), Top: true}, true
}

// tryAt places cl in the window [t, u) without committing anything.
func (c *cycle) tryAt(cl *class, t, u int64) ([]model.ExecChunk, bool) {
	c.win = window{on: true, future: t > c.snap.Now, t: t, u: u}
	defer func() { c.win = window{} }()
	m, ok := c.attempt(cl)
	if !ok {
		return nil, false
	}
	n := 0
	for _, o := range c.att.out {
		n += len(o)
	}
	exec := make([]model.ExecChunk, 0, n)
	for _, o := range c.att.out {
		exec = append(exec, o...)
	}
	if cl.exclhost {
		exec = c.addWholeHosts(exec)
	}
	c.st.rollback(m)
	c.resort()
	return exec, true
}

// planRow is one vnode of a plan with the plan's amounts on it, summed
// over its shares.
type planRow struct {
	v   int
	amt []float64
}

// planFits reports whether a previous plan (exec from t to u) still fits:
// its vnodes exist, take jobs, are not held by others and have its amounts
// free over the whole window. When it does, it also returns the plan per
// vnode (valid until the next call), which addHoldRows takes as is.
func (c *cycle) planFits(exec []model.ExecChunk, t, u int64, excl bool) ([]planRow, bool) {
	st := c.st
	c.win = window{on: true, future: true, t: t, u: u}
	defer func() { c.win = window{} }()
	// Sum the plan per vnode (a vnode may carry several chunks) in a flat
	// scratch row per share; shares of one vnode are merged in place.
	rows := c.rows[:0]
	defer func() {
		for _, rw := range rows {
			c.rowOf[rw.v] = 0
		}
		c.rows = rows[:0]
	}()
	if len(c.scratch) < st.nres {
		c.scratch = make([]float64, 1024*st.nres)
	}
	used := 0
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			v, ok := st.index[sh.Vnode]
			if !ok || !st.eligible[v] || c.held(v) || (excl && c.used(v)) {
				return nil, false
			}
			if c.rowOf == nil {
				c.rowOf = make([]int, len(st.vnodes))
			}
			var amt []float64
			if k := c.rowOf[v]; k > 0 {
				amt = rows[k-1].amt
			} else {
				if used+st.nres > len(c.scratch) {
					c.scratch = make([]float64, 2*len(c.scratch))
					used = 0 // rows keep the old backing array
				}
				amt = c.scratch[used : used+st.nres : used+st.nres]
				used += st.nres
				clear(amt)
				rows = append(rows, planRow{v, amt})
				c.rowOf[v] = len(rows)
			}
			for name, a := range sh.Amounts {
				r, ok := st.col[name]
				if !ok {
					return nil, false
				}
				amt[r] += a
			}
		}
	}
	for _, rw := range rows {
		for r, a := range rw.amt {
			if a > 0 && c.free(rw.v, r) < a {
				return nil, false
			}
		}
	}
	return rows, true
}

// setEstimate records a top job's estimate when it changed.
func (c *cycle) setEstimate(j *model.Job, e model.JobEstimate) {
	if j.TopJob() && j.EstStart() == e.Start && sameExec(j.EstExec(), e.Exec) {
		return
	}
	c.plan.Estimates = append(c.plan.Estimates, e)
}

// clearTop clears the estimate of a job that is no longer a top job.
func (c *cycle) clearTop(j *model.Job) {
	if j.TopJob() || j.EstStart() != 0 || len(j.EstExec()) > 0 {
		c.plan.Estimates = append(c.plan.Estimates, model.JobEstimate{JobID: j.ID})
	}
}

func sameExec(a, b []model.ExecChunk) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // a kept plan is the same slice
	}
	for i := range a {
		if len(a[i].Shares) != len(b[i].Shares) || a[i].MPIProcs != b[i].MPIProcs {
			return false
		}
		for k, s := range a[i].Shares {
			t := b[i].Shares[k]
			if s.Vnode != t.Vnode || s.Host != t.Host || len(s.Amounts) != len(t.Amounts) {
				return false
			}
			for name, v := range s.Amounts {
				if t.Amounts[name] != v {
					return false
				}
			}
		}
	}
	return true
}

// anyEligible reports whether every chunk of cl matches some vnode that
// takes jobs; vnode states do not change in a cycle, so without one no
// future time can hold the job and it is not searched.
func (c *cycle) anyEligible(cl *class) bool {
	st := c.st
	for i := range cl.chunks {
		ch := &cl.chunks[i]
		if !ch.constrained {
			if !c.eligibility().any {
				return false
			}
			continue
		}
		ok := false
		vs := ch.cands
		if vs == nil {
			vs = c.all()
		}
		for _, v := range vs {
			if ch.allows(v) && st.eligible[v] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
