package scheduler

import (
	"cmp"
	"slices"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// Preemption inside a cycle: a job that does not fit frees, in the
// cycle's overlay, the resources of running jobs of lower preemption
// priority (preempt.go orders them) until it fits, then the plan lists
// those victims before its run; the FSM preempts them first (suspend and
// requeue free the vnodes in the same entry) and then starts the job.
// Jobs the scheduler suspended are resumed when their cpus are free again,
// before any queued job of their level or lower is considered.

const msgPreemptWait = "Waiting for preempted jobs to release their resources"

// preemptState is built at the first use in a cycle.
type preemptState struct {
	cands    []victim        // running jobs that may be preempted, level set
	minLevel int             // the lowest level among cands
	taken    map[string]bool // victims chosen earlier in this cycle
	jobsOn   []int           // vnode -> jobs holding it (snapshot, less victims)
	failed   map[*class]int  // a class that found no victims, at this level
	susp     []*model.Job    // scheduler-suspended jobs still to resume, oldest first
	suspLvl  []int
	ncpus    int // the ncpus column, -1 when none
	// methods caches each candidate's preempt_order method, without and
	// with suspension ruled out ("" not yet known, "-" none applies).
	methods [][2]string
}

func (c *cycle) preemptOn() bool { return c.snap.Config.Preempt != nil }

func (c *cycle) preemptState() *preemptState {
	if c.pre != nil {
		return c.pre
	}
	s, p, st := c.snap, c.snap.Config.Preempt, c.st
	ps := &preemptState{taken: map[string]bool{}, failed: map[*class]int{}, jobsOn: make([]int, len(st.vnodes)), ncpus: -1}
	if r, ok := st.col["ncpus"]; ok {
		ps.ncpus = r
	}
	resvQueue := map[string]bool{}
	for _, r := range s.Reservations {
		resvQueue[r.Queue] = true
	}
	first := true
	for _, j := range s.Running {
		for _, name := range j.Vnodes() {
			if v, ok := st.index[name]; ok {
				ps.jobsOn[v]++
			}
		}
		switch {
		case j.State == model.StateSuspended && j.Substate == model.SubSchedSuspended:
			ps.susp = append(ps.susp, j)
		case j.State != model.StateRunning || resvQueue[j.Queue]:
			// Jobs in reservations are never preempted (OpenPBS).
		case j.Substate == model.SubRunning && !j.KillRequested(),
			j.Preempting() != "":
			l := preemptLevel(s, p, j)
			ps.cands = append(ps.cands, victim{job: j, level: l, start: j.Stime, pending: j.Preempting() != ""})
			if first || l < ps.minLevel {
				ps.minLevel, first = l, false
			}
		}
	}
	rankVictims(ps.cands) // costs are 0 here: the order of a preemptor without an AOE
	ps.methods = make([][2]string, len(ps.cands))
	slices.SortStableFunc(ps.susp, func(a, b *model.Job) int { return cmp.Compare(a.PreemptedAt(), b.PreemptedAt()) })
	for _, j := range ps.susp {
		ps.suspLvl = append(ps.suspLvl, preemptLevel(s, p, j))
	}
	c.pre = ps
	return ps
}

// orderByPreemptLevel puts jobs of higher preemption priority first
// (OpenPBS's comparator puts it before every other key), then, within a
// level, jobs preempted and requeued before the others, the earliest
// preempted first (OpenPBS's next key), keeping the policy order
// otherwise.
func (c *cycle) orderByPreemptLevel(ranked []policy.Ranked) {
	if !c.preemptOn() || len(ranked) == 0 {
		return
	}
	s, p := c.snap, c.snap.Config.Preempt
	levels := make(map[*model.Job]int, len(ranked))
	varied := false
	for _, r := range ranked {
		levels[r.Job] = preemptLevel(s, p, r.Job)
		varied = varied || levels[r.Job] != levels[ranked[0].Job] || requeuedByPreemption(r.Job)
	}
	if !varied {
		return
	}
	slices.SortStableFunc(ranked, func(a, b policy.Ranked) int {
		if c := cmp.Compare(levels[b.Job], levels[a.Job]); c != 0 {
			return c
		}
		pa, pb := requeuedByPreemption(a.Job), requeuedByPreemption(b.Job)
		switch {
		case pa && pb:
			return cmp.Compare(a.Job.PreemptedAt(), b.Job.PreemptedAt())
		case pa:
			return -1
		case pb:
			return 1
		}
		return 0
	})
}

// requeuedByPreemption reports whether a queued job was preempted and has
// not run since.
func requeuedByPreemption(j *model.Job) bool {
	return j.PreemptedAt() > 0 && j.PreemptedAt() >= j.Stime
}

// resumeBefore resumes the suspended jobs whose level is at least that of
// queued job j (all of them when j is nil), where their cpus are free.
func (c *cycle) resumeBefore(j *model.Job) {
	if !c.preemptOn() {
		return
	}
	ps := c.preemptState()
	if len(ps.susp) == 0 {
		return
	}
	level := -1 << 31
	if j != nil {
		level = preemptLevel(c.snap, c.snap.Config.Preempt, j)
	}
	keep, keepLvl := ps.susp[:0], ps.suspLvl[:0]
	for i, sj := range ps.susp {
		if ps.suspLvl[i] < level || !c.tryResume(ps, sj) {
			keep, keepLvl = append(keep, sj), append(keepLvl, ps.suspLvl[i])
		}
	}
	ps.susp, ps.suspLvl = keep, keepLvl
}

// tryResume takes back a suspended job's cpus if every vnode has them.
func (c *cycle) tryResume(ps *preemptState, j *model.Job) bool {
	st := c.st
	if ps.ncpus < 0 {
		return false
	}
	need := map[int]float64{}
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			v, ok := st.index[sh.Vnode]
			if !ok || !st.eligible[v] {
				return false
			}
			need[v] += sh.Amounts["ncpus"]
		}
	}
	for v, amt := range need {
		if st.free(v, ps.ncpus) < amt {
			return false
		}
	}
	for v, amt := range need {
		c.adjustFree(v, ps.ncpus, -amt)
	}
	c.plan.Resumes = append(c.plan.Resumes, j.ID)
	return true
}

// adjustFree changes what v has free of column r by delta (positive: a
// victim gives it back) and keeps the aggregates right.
func (c *cycle) adjustFree(v, r int, delta float64) {
	st := c.st
	before := st.free(v, r)
	st.avail0[v*st.nres+r] += delta
	after := st.free(v, r)
	d := max(0, after) - max(0, before)
	st.srvFree[r] += d
	if st.counts(v) {
		st.eligFree[r] += d
	}
	// The placement sets holding v cached what they had free (psets.go).
	for _, ix := range c.psetIdx {
		for _, i := range ix.of[ix.start[v]:ix.start[v+1]] {
			ix.sets[i].freeOK = false
		}
	}
}

// setHeld holds or unholds v exclusively, keeping eligFree right.
func (c *cycle) setHeld(v int, held bool) {
	st := c.st
	if st.held[v] == held {
		return
	}
	if held {
		st.hold(v)
		return
	}
	st.held[v] = false
	if st.counts(v) {
		for r := range st.names {
			st.eligFree[r] += max(0, st.free(v, r))
		}
	}
}

// victimFlags is what freeing a victim changed on one vnode, to undo it.
type victimFlags struct {
	v          int
	used, held bool
}

// freeVictim gives a victim's resources back in the overlay: only its
// cpus when it is suspended (it stays on its vnodes, as qsig -s suspend
// leaves it), everything when it leaves them.
func (c *cycle) freeVictim(ps *preemptState, vc *victim, dir float64, saved *[]victimFlags) {
	st := c.st
	leaves := vc.pending || vc.method != model.PreemptSuspend
	for _, ec := range vc.job.Exec {
		for _, sh := range ec.Shares {
			v, ok := st.index[sh.Vnode]
			if !ok {
				continue
			}
			for name, amt := range sh.Amounts {
				r, ok := st.col[name]
				if !ok || (!leaves && name != "ncpus") {
					continue
				}
				c.adjustFree(v, r, dir*amt)
			}
		}
	}
	if !leaves {
		return
	}
	if dir < 0 { // unfree: restore the flags saved when freed
		for _, f := range *saved {
			ps.jobsOn[f.v]++
			st.used[f.v] = f.used
			c.setHeld(f.v, f.held)
		}
		*saved = (*saved)[:0]
		return
	}
	for _, name := range vc.job.Vnodes() {
		v, ok := st.index[name]
		if !ok {
			continue
		}
		*saved = append(*saved, victimFlags{v: v, used: st.used[v], held: st.held[v]})
		ps.jobsOn[v]--
		if vc.job.Exclusive() {
			c.setHeld(v, false)
		}
		if ps.jobsOn[v] <= 0 && !c.placedOn(v) {
			st.used[v] = false
		}
	}
}

// placedOn reports whether this cycle placed anything on v.
func (c *cycle) placedOn(v int) bool {
	st := c.st
	for r := 0; r < st.nres; r++ {
		if st.placed[v*st.nres+r] != 0 {
			return true
		}
	}
	return false
}

// victimsFor lists the running jobs j may preempt with what each would
// cost. A preemptor with an AOE only takes jobs on vnodes that run its AOE
// or can be provisioned to it (OpenPBS never lets such a job preempt);
// reimaging counts as the victim's cost and rules out suspension there.
func (c *cycle) victimsFor(ps *preemptState, j *model.Job, level int) []victim {
	st, p := c.st, c.snap.Config.Preempt
	aoe := model.SelectAOE(j.Select)
	var out []victim
	for ci, vc := range ps.cands {
		if vc.level >= level || ps.taken[vc.job.ID] {
			continue
		}
		noSuspend, usable := false, aoe == ""
		if aoe != "" {
			for _, name := range vc.job.Vnodes() {
				v, ok := st.index[name]
				if !ok {
					continue
				}
				vn := st.vnodes[v]
				switch {
				case vn.CurrentAOE == aoe:
					usable = true
				case c.snap.Provision.Enabled && vn.ProvisionEnable && inList(vn.Available["aoe"], aoe):
					usable, noSuspend = true, true
				}
			}
			if noSuspend {
				vc.cost = c.snap.Provision.Estimate(aoe)
			}
		}
		if !usable {
			continue
		}
		if !vc.pending {
			b := 0
			if noSuspend {
				b = 1
			}
			m := &ps.methods[ci][b]
			if *m == "" {
				if *m = preemptMethod(p.Order, vc.job, c.walltime(vc.job), c.snap.Now, noSuspend); *m == "" {
					*m = "-"
				}
			}
			if *m == "-" {
				continue
			}
			vc.method = *m
		}
		out = append(out, vc)
	}
	if aoe != "" {
		rankVictims(out) // reimaging costs reorder them
	}
	return out
}

// preemptFor tries to make room for j (of class cl, which did not fit) by
// preemption. handled reports that it decided j's fate this cycle
// (started, or waiting for victims that are leaving); otherwise the
// caller goes on as if preemption were off.
func (c *cycle) preemptFor(j *model.Job, cl *class, runID string) (handled, startedNow bool) {
	if !c.preemptOn() {
		return false, false
	}
	ps := c.preemptState()
	if len(ps.cands) == 0 {
		return false, false
	}
	level := preemptLevel(c.snap, c.snap.Config.Preempt, j)
	if level <= ps.minLevel {
		return false, false
	}
	if l, ok := ps.failed[cl]; ok && l >= level {
		return false, false
	}
	vs := c.victimsFor(ps, j, level)
	if len(vs) == 0 {
		ps.failed[cl] = level
		return false, false
	}
	// Freed resources may lie behind the cursors, which assume free
	// amounts only shrink during a cycle: start them again.
	for _, cu := range c.cursors {
		*cu = cursor{}
	}
	saved := make([][]victimFlags, len(vs))
	free := func(i int) { c.freeVictim(ps, &vs[i], +1, &saved[i]) }
	unfree := func(i int) { c.freeVictim(ps, &vs[i], -1, &saved[i]) }
	fits := func() bool {
		for r, need := range cl.need {
			if need > c.st.eligFree[r] {
				return false
			}
		}
		m, ok := c.attempt(cl)
		if ok {
			c.st.rollback(m)
			c.resort()
		}
		return ok
	}
	chosen, ok := chooseVictims(len(vs), free, unfree, fits)
	if !ok {
		ps.failed[cl] = level
		return false, false
	}
	m, ok := c.attempt(cl)
	if !ok { // cannot happen: fits just said so
		for k := len(chosen) - 1; k >= 0; k-- {
			unfree(chosen[k])
		}
		return false, false
	}
	exec := c.commit(cl, m)
	wait := false
	for _, i := range chosen {
		vc := vs[i]
		ps.taken[vc.job.ID] = true
		if vc.pending || vc.method == model.PreemptCheckpoint {
			wait = true // its vnodes are free only once it has ended
		}
		if !vc.pending {
			c.plan.Preempts = append(c.plan.Preempts, model.Preemption{JobID: vc.job.ID, Method: vc.method, By: runID})
		}
	}
	if wait {
		// The placement stays in the overlay so that nothing else takes
		// what the leaving jobs give back; the job runs in a later cycle.
		c.comment(j, prefixNotRunning+msgPreemptWait, false)
		c.clearTop(j)
		return true, false
	}
	if c.snap.Config.StrictOrdering || c.cal != nil {
		e := end(c.snap.Now, c.duration(j))
		if c.cal != nil {
			c.cal.addRunning(c.st, exec, e, cl.excl)
		} else {
			c.started = append(c.started, started{exec: exec, end: e, excl: cl.excl})
		}
	}
	c.markProvision(j, cl, exec) // provisioning hook point (aoe.go)
	c.plan.Runs = append(c.plan.Runs, model.RunDecision{JobID: runID, Exec: exec, Exclusive: cl.excl})
	return true, true
}

// heldAmounts is what a running job holds of a share for the calendar: a
// suspended job gave its cpus back (they are free now, and it takes them
// again only when they are free), so only the rest is held until its end.
func heldAmounts(j *model.Job, amounts map[string]float64) map[string]float64 {
	if j.State != model.StateSuspended || amounts["ncpus"] == 0 {
		return amounts
	}
	out := make(map[string]float64, len(amounts))
	for k, v := range amounts {
		if k != "ncpus" {
			out[k] = v
		}
	}
	return out
}
