package scheduler

import (
	"cmp"
	"math"
	"slices"

	"github.com/strata-hpc/strata/model"
)

// forever is the end of a use whose end is unknown (no walltime and no
// default walltime): the calendar never gives it back.
const forever = math.MaxInt64

// holdKind says why the calendar holds future resources.
type holdKind uint8

const (
	// holdTopJob is a top job's planned start on its estimated vnodes.
	holdTopJob holdKind = iota + 1
	// holdReservation is the seam for advance reservations: a confirmed
	// reservation will hold its vnodes from its start to its end, exactly
	// like a top job, and jobs that overlap it get the same comment ("would
	// conflict with reservation or top job"). Nothing adds one yet.
	holdReservation
)

// use is one job's (or reservation's) use of one vnode over time. Uses of
// jobs running now (started before or during this cycle) are already
// subtracted from the overlay's free amounts and give them back at end;
// holds (future) take their amounts from start to end.
type use struct {
	start, end int64
	amt        []float64 // per column; nil when the use consumes nothing
	excl       bool
	hold       holdKind // 0 for running jobs
}

// calendar is the resource-time view of one cycle: what is used now and
// when it is released, and what top jobs (later reservations) will hold.
// It is built lazily at the first estimate, so cycles without
// strict_ordering never pay for it, and it is incremental: a job started
// or a top job planned adds its uses to the vnodes it touches and one
// step change to the aggregate profile. Nothing is ever copied per top job;
// estimating costs a walk over the profile's steps plus placement attempts
// at the few times the aggregate says the job could fit.
type calendar struct {
	now  int64
	nres int
	uses [][]use // per vnode
	// heldUntil and usedUntil are when the jobs running now stop holding a
	// vnode exclusively / using it at all (0: not held/used; forever:
	// held or used by something whose end is unknown).
	heldUntil []int64
	usedUntil []int64
	// holds counts future holds per vnode: only those vnodes need the
	// window check when a job starts now.
	holds  []int
	nholds int
	// exclHolds counts future exclusive holds per vnode (busy for
	// everyone); vp is each vnode's free profile, built when first asked
	// (see calendar_vnode.go).
	exclHolds []int
	vp        []profile
	prof      profile
	// rels are the releases of jobs started since prof was last read;
	// profile() merges them in one pass. Adding each at once cost a walk
	// over every later step, quadratic in the jobs a cycle starts (a
	// cycle that fills an empty cluster of 50,000 vnodes starts hundreds
	// of thousands).
	rels   []release
	slab   []float64 // backing store for use amounts
	sum    []float64 // scratch: one job's total amounts
	unused unusedIndex
}

// newCalendar builds the calendar from the running jobs, the jobs started
// so far in this cycle and the overlay.
func (c *cycle) newCalendar() *calendar {
	st := c.st
	n := len(st.vnodes)
	cal := &calendar{
		now:       c.snap.Now,
		nres:      st.nres,
		uses:      make([][]use, n),
		heldUntil: make([]int64, n),
		usedUntil: make([]int64, n),
		holds:     make([]int, n),
		exclHolds: make([]int, n),
		vp:        make([]profile, n),
	}
	// Running jobs from the snapshot. A vnode that the stored state says
	// is used or held by a job the snapshot does not list as running is
	// used (held) with no known end.
	known := make([]int, n)
	seen := make([]int, n) // index+1 of the last running job seen on v
	var rel []release
	for ji, j := range c.snap.Running {
		end := c.runningEnd(j)
		var sum []float64 // the job's release on eligible vnodes
		for _, ec := range j.Exec {
			for _, sh := range ec.Shares {
				v, ok := st.index[sh.Vnode]
				if !ok {
					continue
				}
				amt := cal.amounts(st, heldAmounts(j, sh.Amounts)) // preempt_cycle.go
				cal.uses[v] = append(cal.uses[v], use{start: cal.now, end: end, amt: amt, excl: j.Exclusive()})
				if amt != nil && st.eligible[v] && end != forever {
					if sum == nil {
						sum = cal.alloc()
					}
					for r, a := range amt {
						sum[r] += a
					}
				}
				if seen[v] != ji+1 {
					seen[v] = ji + 1
					known[v]++
				}
				cal.usedUntil[v] = max(cal.usedUntil[v], end)
				if j.Exclusive() {
					cal.heldUntil[v] = max(cal.heldUntil[v], end)
				}
			}
		}
		if sum != nil {
			rel = append(rel, release{t: end, amt: sum})
		}
	}
	for v, vn := range st.vnodes {
		if len(vn.Jobs) > known[v] {
			cal.usedUntil[v] = forever
		}
		if vn.ExclusiveJob != "" && cal.heldUntil[v] == 0 {
			cal.heldUntil[v] = forever
		}
	}
	// The free profile starts from what eligible vnodes have free now
	// (including jobs started earlier in this cycle).
	base := make([]float64, st.nres)
	for v := range st.vnodes {
		if !st.eligible[v] {
			continue
		}
		for r := range base {
			base[r] += max(0, st.free(v, r))
		}
	}
	cal.prof.init(cal.now, base, rel)
	for _, s := range c.started {
		cal.addRunning(st, s.exec, s.end, s.excl)
	}
	return cal
}

type release struct {
	t   int64
	amt []float64
}

// amounts interns a share's amounts as a per-column slice.
func (cal *calendar) amounts(st *state, m map[string]float64) []float64 {
	var amt []float64
	for name, a := range m {
		r, ok := st.col[name]
		if !ok || a == 0 {
			continue
		}
		if amt == nil {
			amt = cal.alloc()
		}
		amt[r] += a
	}
	return amt
}

// alloc returns a zeroed per-column slice from the slab.
func (cal *calendar) alloc() []float64 {
	if len(cal.slab) < cal.nres {
		cal.slab = make([]float64, 256*cal.nres)
	}
	var amt []float64
	amt, cal.slab = cal.slab[:cal.nres:cal.nres], cal.slab[cal.nres:]
	return amt
}

// addRunning records a job started in this cycle (its amounts are already
// in the overlay) so that it gives them back at end.
func (cal *calendar) addRunning(st *state, exec []model.ExecChunk, end int64, excl bool) {
	cal.unused.ok = false
	sum := cal.sumBuf()
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			v := st.index[sh.Vnode]
			amt := cal.amounts(st, sh.Amounts)
			cal.uses[v] = append(cal.uses[v], use{start: cal.now, end: end, amt: amt, excl: excl})
			cal.noteUse(v)
			cal.usedUntil[v] = max(cal.usedUntil[v], end)
			if excl {
				cal.heldUntil[v] = max(cal.heldUntil[v], end)
			}
			for r, a := range amt {
				sum[r] += a
			}
		}
	}
	if end != forever && anyNonZero(sum) {
		amt := cal.alloc()
		copy(amt, sum)
		cal.rels = append(cal.rels, release{t: end, amt: amt})
	}
}

// profile returns the cluster-wide free profile with every release added.
func (cal *calendar) profile() *profile {
	if len(cal.rels) > 0 {
		cal.prof.merge(cal.rels)
		cal.rels = cal.rels[:0]
	}
	return &cal.prof
}

// addHold makes exec's vnodes unavailable to others from start to end.
func (cal *calendar) addHold(st *state, kind holdKind, exec []model.ExecChunk, start, end int64, excl bool) {
	sum := cal.sumBuf()
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			v := st.index[sh.Vnode]
			amt := cal.amounts(st, sh.Amounts)
			cal.uses[v] = append(cal.uses[v], use{start: start, end: end, amt: amt, excl: excl, hold: kind})
			cal.noteUse(v)
			cal.holds[v]++
			cal.nholds++
			for r, a := range amt {
				sum[r] += a
			}
		}
	}
	if anyNonZero(sum) {
		cal.profile().add(start, end, sum, -1)
	}
}

func anyNonZero(a []float64) bool {
	for _, x := range a {
		if x != 0 {
			return true
		}
	}
	return false
}

// sumBuf is a zeroed scratch row for a job's total amounts.
func (cal *calendar) sumBuf() []float64 {
	if cal.sum == nil {
		cal.sum = make([]float64, cal.nres)
	}
	clear(cal.sum)
	return cal.sum
}

// freeDelta is how much the free amount of column r on v changes, at worst,
// over [t, u) compared with now: releases up to t add, holds overlapping
// subtract. It reads v's free profile (calendar_vnode.go).
func (cal *calendar) freeDelta(v, r int, t, u int64) float64 {
	if len(cal.uses[v]) == 0 {
		return 0
	}
	return cal.vprofile(v).windowMin(r, t, u)
}

// busy reports whether v is held exclusively (excl) or used at all by
// anything during [t, u).
func (cal *calendar) busy(v int, t, u int64, anyUse bool) bool {
	until := cal.heldUntil[v]
	if anyUse {
		until = cal.usedUntil[v]
	}
	if until > t {
		return true
	}
	if cal.holds[v] == 0 || (!anyUse && cal.exclHolds[v] == 0) {
		return false
	}
	for i := range cal.uses[v] {
		o := &cal.uses[v][i]
		if o.hold != 0 && (anyUse || o.excl) && o.start < u && t < o.end {
			return true
		}
	}
	return false
}

// profile is the cluster-wide free amount of each column over time, as
// steps: step i covers [ts[i], ts[i+1]) (the last one to forever). It is
// a necessary condition only (a job needs its total free somewhere), used
// to skip times at which no placement can succeed.
type profile struct {
	nres int
	ts   []int64
	free []float64 // [i*nres+r]
}

func (p *profile) init(now int64, base []float64, rel []release) {
	p.nres = len(base)
	slices.SortFunc(rel, func(a, b release) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	p.ts = append(p.ts[:0], now)
	p.free = append(p.free[:0], base...)
	for _, e := range rel {
		if e.t <= now {
			continue
		}
		last := len(p.ts) - 1
		if p.ts[last] != e.t {
			p.ts = append(p.ts, e.t)
			p.free = append(p.free, p.free[last*p.nres:(last+1)*p.nres]...)
			last++
		}
		for r, a := range e.amt {
			p.free[last*p.nres+r] += a
		}
	}
}

// merge adds each release's amounts from its time on (as add(t, forever,
// amt, 1) would, one at a time) in one pass over the steps.
func (p *profile) merge(rel []release) {
	for i := range rel {
		rel[i].t = max(rel[i].t, p.ts[0])
	}
	slices.SortStableFunc(rel, func(a, b release) int { return cmp.Compare(a.t, b.t) })
	n := p.nres
	ts := make([]int64, 0, len(p.ts)+len(rel))
	free := make([]float64, 0, (len(p.ts)+len(rel))*n)
	acc := make([]float64, n) // released up to the current time
	cur := 0                  // p's step covering the current time
	for i, k := 0, 0; i < len(p.ts) || k < len(rel); {
		t := int64(forever)
		if i < len(p.ts) {
			t = p.ts[i]
		}
		if k < len(rel) && rel[k].t < t {
			t = rel[k].t
		}
		if i < len(p.ts) && p.ts[i] == t {
			cur = i
			i++
		}
		for ; k < len(rel) && rel[k].t == t; k++ {
			for r, a := range rel[k].amt {
				acc[r] += a
			}
		}
		ts = append(ts, t)
		for r := 0; r < n; r++ {
			free = append(free, p.free[cur*n+r]+acc[r])
		}
	}
	p.ts, p.free = ts, free
}

// split makes t a step boundary and returns its step.
func (p *profile) split(t int64) int {
	i, found := slices.BinarySearch(p.ts, t)
	if found {
		return i
	}
	// t > ts[0] always (callers clamp to now), so step i-1 covers t.
	p.ts = slices.Insert(p.ts, i, t)
	prev := p.free[(i-1)*p.nres : i*p.nres]
	p.free = slices.Insert(p.free, i*p.nres, prev...)
	return i
}

// add adds sign*amt over [s, e).
func (p *profile) add(s, e int64, amt []float64, sign float64) {
	s = max(s, p.ts[0])
	if e <= s {
		return
	}
	i := p.split(s)
	end := len(p.ts)
	if e != forever {
		end = p.split(e)
	}
	for k := i; k < end; k++ {
		for r, a := range amt {
			p.free[k*p.nres+r] += sign * a
		}
	}
}

// fits reports whether need fits in every step overlapping [ts[i], u).
// When it does not, it returns the step that failed: no start at or before
// that step's time can fit either (its window would cover the step), so a
// search resumes after it and the whole scan stays linear in steps.
func (p *profile) fits(i int, u int64, need []float64) (int, bool) {
	for k := i; k < len(p.ts) && p.ts[k] < u; k++ {
		for r, n := range need {
			if n > 0 && p.free[k*p.nres+r] < n {
				return k, false
			}
		}
	}
	return 0, true
}
