package scheduler

import (
	"sort"

	"github.com/strata-hpc/strata/model"
)

// Reservations in a cycle (docs/reservations.md).
//
//  1. Jobs of running reservations run first, each reservation in a
//     sub-cycle whose vnodes are the reservation's, with the reserved
//     amounts as capacity: they never leave the reservation's vnodes and
//     never exceed what it holds. They are never top jobs.
//  2. The calendar is built and every confirmed or running reservation
//     holds its vnodes (holdReservation) from its start (minus the
//     provisioning lead time for an AOE reservation) to its end; jobs
//     outside start only if they leave it alone (comment "Job would
//     conflict with reservation or top job").
//  3. Unconfirmed reservations are checked against that calendar (running
//     jobs' ends, other reservations, and the top jobs' kept estimates,
//     so a new reservation never pushes back a promised start) and
//     confirmed with vnodes or denied.
//
// Unlike OpenPBS the cycle then goes on to run jobs: confirming a
// reservation costs no cycle.

// Denial reasons (the server logs them; pbs_rsub -I shows DENIED).
const (
	msgResvPast     = "reservation end is in the past"
	msgResvNoFit    = "Insufficient resources during the reservation's period"
	msgResvNeverFit = "Reservation can never run: "
	resvFailPrefix  = "PBS Failed to confirm resv: "
)

// reservations is the cycle's reservation pass; it returns the queued jobs
// that are not in a reservation.
func (c *cycle) reservations() []*model.Job {
	s := c.snap
	if len(s.Reservations) == 0 {
		return s.Queued
	}
	byQueue := map[string]*model.Reservation{}
	for _, r := range s.Reservations {
		byQueue[r.Queue] = r
	}
	var rest []*model.Job
	inside := map[string][]*model.Job{}
	for _, j := range s.Queued {
		if r, ok := byQueue[j.Queue]; ok {
			if r.State == model.ResvRunning {
				inside[r.ID] = append(inside[r.ID], j)
			}
			continue // a reservation's job runs only inside it
		}
		rest = append(rest, j)
	}
	var startedIn []started
	for _, r := range s.Reservations {
		if r.State == model.ResvRunning && len(inside[r.ID]) > 0 {
			startedIn = append(startedIn, c.runInside(r, inside[r.ID])...)
		}
	}
	c.started = append(c.started, startedIn...)
	c.hardEnds = anyUnconfirmed(s.Reservations) // soft walltime hook point (softwall.go)
	c.cal = c.newCalendar()
	for _, r := range s.Reservations {
		if r.Active() {
			c.holdResv(r, startedIn)
		}
	}
	// Degraded reservations are existing commitments: their replacements
	// are found before new reservations are confirmed (resv_degrade.go).
	replaced := c.reconfirmDegraded()
	var pending []*model.Reservation
	for _, r := range s.Reservations {
		if r.State == model.ResvUnconfirmed && r.Gone == 0 {
			pending = append(pending, r)
		}
	}
	altered := c.alteredResvs() // pbs_ralter (resv_alter.go)
	if len(pending) == 0 && len(altered) == 0 {
		return rest
	}
	// Confirmation also respects the top jobs' kept estimates. They are
	// held only while confirming: the job pass plans top jobs afresh.
	c.holdKeptEstimates(rest)
	confirmed := c.decideAlters(altered, startedIn)
	for _, r := range pending {
		d := c.confirm(r)
		c.plan.Resvs = append(c.plan.Resvs, d)
		if d.Confirm {
			cr := *r
			cr.State, cr.Nodes = model.ResvConfirmed, d.Nodes
			confirmed = append(confirmed, &cr)
		}
	}
	c.hardEnds = false
	c.cal = c.newCalendar()
	for _, r := range s.Reservations {
		if r.Active() {
			c.holdResv(r, startedIn)
		}
	}
	for _, r := range append(confirmed, replaced...) {
		c.holdResv(r, startedIn)
	}
	return rest
}

// lead is how long before its start a reservation holds its vnodes: the
// learned provisioning time of its AOE, so that they can be provisioned
// before the start.
func (c *cycle) lead(r *model.Reservation) int64 {
	if r.AOE == "" {
		return 0
	}
	return c.snap.Provision.Estimate(r.AOE)
}

// resvClass compiles a reservation's request like a job's. A reservation
// with an AOE is place=excl (PBS rule).
func (c *cycle) resvClass(r *model.Reservation) *class {
	pj := &model.Job{ID: r.ID, Select: r.Select, Place: r.Place}
	if r.AOE != "" {
		pj.Place.Sharing = model.SharingExcl
	}
	return c.compileClass("resv|"+r.ID, pj)
}

// confirm finds vnodes for every occurrence of r, or says why not.
func (c *cycle) confirm(r *model.Reservation) model.ResvDecision {
	now := c.snap.Now
	deny := func(why string) model.ResvDecision {
		return model.ResvDecision{ID: r.ID, Reason: resvFailPrefix + why}
	}
	if r.ASAP {
		return c.confirmASAP(r) // resv_job.go
	}
	if r.End <= now {
		return deny(msgResvPast)
	}
	cl := c.resvClass(r)
	if msg, never := c.neverRun(cl); never {
		return deny(msgResvNeverFit + msg)
	}
	t := max(now, r.Start-c.lead(r))
	exec, ok := c.tryAt(cl, t, r.End)
	if !ok {
		return deny(msgResvNoFit)
	}
	// Standing: every later occurrence must fit on the same vnodes.
	for k := 1; k < len(r.Occurrences); k++ {
		s := r.Occurrences[k]
		if _, fits := c.planFits(exec, max(now, s-c.lead(r)), s+r.LaterDuration(), cl.excl); !fits {
			return deny(msgResvNoFit)
		}
	}
	if r.AOE != "" {
		for i := range exec {
			for k := range exec[i].Shares {
				exec[i].Shares[k].AOE = r.AOE
			}
		}
	}
	// Held at once, so that later reservations of this cycle see it.
	c.cal.addHold(c.st, holdReservation, exec, t, r.End, cl.excl)
	for k := 1; k < len(r.Occurrences); k++ {
		s := r.Occurrences[k]
		c.cal.addHold(c.st, holdReservation, exec, max(now, s-c.lead(r)), s+r.LaterDuration(), cl.excl)
	}
	return model.ResvDecision{ID: r.ID, Confirm: true, Nodes: exec}
}

// holdResv holds an active reservation's vnodes in the calendar: the
// current and later occurrences from start (minus the lead) to end. A
// running one holds only what its own jobs do not already use, since
// those are in the overlay.
func (c *cycle) holdResv(r *model.Reservation, startedIn []started) {
	exec := c.knownShares(r.Nodes) // a vnode of a degraded one may be gone
	later := r.Nodes
	if len(r.BaseNodes) > 0 {
		later = r.BaseNodes // this occurrence runs on replacements
	}
	excl := r.AOE != "" || r.Place.Sharing == model.SharingExcl || r.Place.Sharing == model.SharingExclHost
	now := c.snap.Now
	if r.State == model.ResvRunning {
		exec = c.remaining(r, exec, startedIn)
		c.cal.addHold(c.st, holdReservation, exec, now, r.End, excl)
	} else {
		c.cal.addHold(c.st, holdReservation, exec, max(now, r.Start-c.lead(r)), r.End, excl)
	}
	for k := r.Index; k > 0 && k < len(r.Occurrences); k++ {
		s := r.Occurrences[k]
		c.cal.addHold(c.st, holdReservation, c.knownShares(later), max(now, s-c.lead(r)), s+r.LaterDuration(), excl)
	}
}

// knownExec reports whether every vnode of exec is in this cycle.
func (c *cycle) knownExec(exec []model.ExecChunk) ([]model.ExecChunk, bool) {
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			if _, ok := c.st.index[sh.Vnode]; !ok {
				return nil, false
			}
		}
	}
	return exec, true
}

// remaining is a running reservation's hold: its amounts per vnode minus
// what its running jobs (and those started in this cycle) use there.
func (c *cycle) remaining(r *model.Reservation, exec []model.ExecChunk, startedIn []started) []model.ExecChunk {
	used := map[string]map[string]float64{}
	add := func(ex []model.ExecChunk) {
		for _, ec := range ex {
			for _, sh := range ec.Shares {
				if used[sh.Vnode] == nil {
					used[sh.Vnode] = map[string]float64{}
				}
				for k, a := range sh.Amounts {
					used[sh.Vnode][k] += a
				}
			}
		}
	}
	for _, j := range c.snap.Running {
		if j.Queue == r.Queue {
			add(j.Exec)
		}
	}
	for _, s := range startedIn {
		if s.resv == r.ID {
			add(s.exec)
		}
	}
	out := make([]model.ExecChunk, 0, len(exec))
	for _, ec := range exec {
		nc := model.ExecChunk{MPIProcs: ec.MPIProcs}
		for _, sh := range ec.Shares {
			ns := sh
			ns.Amounts = make(map[string]float64, len(sh.Amounts))
			for k, a := range sh.Amounts {
				take := min(a, used[sh.Vnode][k])
				if used[sh.Vnode] != nil {
					used[sh.Vnode][k] -= take
				}
				if a-take > 0 {
					ns.Amounts[k] = a - take
				}
			}
			nc.Shares = append(nc.Shares, ns)
		}
		out = append(out, nc)
	}
	return out
}

// holdKeptEstimates holds the previous cycle's top-job plans that are
// still in the future, for reservation confirmation only.
func (c *cycle) holdKeptEstimates(queued []*model.Job) {
	now := c.snap.Now
	for _, j := range queued {
		if !j.TopJob() || j.EstStart() <= now || len(j.EstExec()) == 0 {
			continue
		}
		exec, ok := c.knownExec(j.EstExec())
		if !ok {
			continue
		}
		excl := j.Place.Sharing == model.SharingExcl || j.Place.Sharing == model.SharingExclHost
		slot := j.EstStart() - c.provShift(j, j.EstExec()) // the estimate includes provisioning (aoe_estimate.go)
		c.cal.addHold(c.st, holdTopJob, exec, slot, end(slot, c.duration(j)), excl)
	}
}

// runInside runs the queued jobs of a running reservation in a sub-cycle
// over the reservation's vnodes, adds its decisions to the plan and takes
// their resources in this cycle's overlay.
func (c *cycle) runInside(r *model.Reservation, jobs []*model.Job) []started {
	s := c.snap
	sub := &Snapshot{
		Now:       s.Now,
		Defs:      s.Defs,
		Queues:    s.Queues,
		Config:    s.Config,
		Provision: s.Provision,
		Queued:    jobs,
	}
	sub.Config.StrictOrdering = false // jobs in reservations are never top jobs
	sub.Config.Psets.Enable = false   // the reservation's vnodes are its set (psets.go)
	for _, j := range s.Running {
		if j.Queue == r.Queue {
			sub.Running = append(sub.Running, j)
		}
	}
	sub.Vnodes = c.resvVnodes(r, sub.Running)
	if len(sub.Vnodes) == 0 {
		return nil
	}
	p := Schedule(sub)
	for _, cm := range p.Comments {
		cm.NeverRun = false // judged against the reservation, not the vnodes that exist
		c.plan.Comments = append(c.plan.Comments, cm)
	}
	c.plan.Estimates = append(c.plan.Estimates, p.Estimates...)
	var out []started
	for _, d := range p.Runs {
		if !c.takeExternal(d.Exec, d.Exclusive) {
			continue // the real vnode has less free than the reservation says
		}
		c.plan.Runs = append(c.plan.Runs, d)
		out = append(out, started{exec: d.Exec, end: min(r.End, end(s.Now, c.durationOf(jobs, d.JobID))), excl: d.Exclusive, resv: r.ID})
	}
	return out
}

func (c *cycle) durationOf(jobs []*model.Job, id string) int64 {
	for _, j := range jobs {
		if j.ID == id || (j.Array != nil && model.SeqOf(j.ID) == model.SeqOf(id)) {
			return c.duration(j)
		}
	}
	return -1
}

// resvVnodes builds the vnodes a reservation's sub-cycle sees: its own,
// with the reserved amounts as capacity (other consumables as the vnode
// has them) and only its own jobs on them.
func (c *cycle) resvVnodes(r *model.Reservation, running []*model.Job) []*model.Vnode {
	amounts := map[string]map[string]float64{}
	var order []string
	for _, ec := range r.Nodes {
		for _, sh := range ec.Shares {
			if amounts[sh.Vnode] == nil {
				amounts[sh.Vnode] = map[string]float64{}
				order = append(order, sh.Vnode)
			}
			for k, a := range sh.Amounts {
				amounts[sh.Vnode][k] += a
			}
		}
	}
	mine := map[string]bool{}
	for _, j := range running {
		mine[j.ID] = true
	}
	var out []*model.Vnode
	for _, name := range order {
		i, ok := c.st.index[name]
		if !ok {
			continue
		}
		v := c.st.vnodes[i].Copy()
		for k, a := range amounts[name] {
			v.Capacity[k] = a
		}
		v.Assigned = map[string]float64{}
		v.Jobs = map[string]int{}
		if !mine[v.ExclusiveJob] {
			v.ExclusiveJob = ""
		}
		for _, j := range running {
			for _, ec := range j.Exec {
				for _, sh := range ec.Shares {
					if sh.Vnode != name {
						continue
					}
					v.Jobs[j.ID] += int(sh.Amounts["ncpus"])
					for k, a := range sh.Amounts {
						v.Assigned[k] += a
					}
				}
			}
		}
		v.State &^= model.NodeResvExclusive
		v.RecomputeBusy()
		out = append(out, v)
	}
	sort.SliceStable(out, func(a, b int) bool { return c.st.index[out[a].Name] < c.st.index[out[b].Name] })
	return out
}

// takeExternal takes a placement decided elsewhere (a reservation's
// sub-cycle) in this cycle's overlay; false when it does not fit.
func (c *cycle) takeExternal(exec []model.ExecChunk, excl bool) bool {
	st := c.st
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			v, ok := st.index[sh.Vnode]
			if !ok {
				return false
			}
			for k, a := range sh.Amounts {
				if r, ok := st.col[k]; ok && st.free(v, r) < a {
					return false
				}
			}
		}
	}
	m := st.mark()
	var touched []int
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			v := st.index[sh.Vnode]
			touched = append(touched, v)
			for k, a := range sh.Amounts {
				if r, ok := st.col[k]; ok && a > 0 {
					st.take(v, r, a)
				}
			}
		}
	}
	st.commit(m, excl)
	for _, v := range touched {
		st.use(v, excl)
	}
	return true
}
