package scheduler

import "slices"

// Per-vnode free profiles: the "free from" index of the calendar.
//
// freeDelta used to walk every use of a vnode for each hold start inside
// the window (quadratic in the vnode's uses), and it runs for every vnode
// scanned by every placement attempt at a future time. With deep backfill
// (conservative: every blocked job a top job) vnodes collect tens of holds
// and most attempts fail, so that walk was most of a cycle. Each vnode now
// keeps, once something asks, the change of its free amounts relative to
// now as steps over time (the same representation as the cluster-wide
// profile): a window query is a binary search plus the steps inside the
// window. Uses added later in the cycle update a built profile in place.

// vprofile returns v's free-change profile, building it from its uses on
// first use. The profile's values are per column: what releases up to
// that step add and what holds over that step take.
func (cal *calendar) vprofile(v int) *profile {
	p := &cal.vp[v]
	if p.ts != nil {
		return p
	}
	p.nres = cal.nres
	p.ts = append(make([]int64, 0, 2*len(cal.uses[v])+1), cal.now)
	p.free = make([]float64, cal.nres, (2*len(cal.uses[v])+1)*cal.nres)
	for i := range cal.uses[v] {
		cal.vprofAdd(p, &cal.uses[v][i])
	}
	return p
}

// vprofAdd applies one use to a vnode profile: a running job's amounts
// come back at its end, a hold takes its amounts over [start, end).
func (cal *calendar) vprofAdd(p *profile, o *use) {
	if o.amt == nil {
		return
	}
	if o.hold != 0 {
		p.add(o.start, o.end, o.amt, -1)
	} else if o.end != forever {
		p.add(o.end, forever, o.amt, 1)
	}
}

// noteUse keeps v's indexes up to date after a use was appended to it.
func (cal *calendar) noteUse(v int) {
	o := &cal.uses[v][len(cal.uses[v])-1]
	if o.hold != 0 && o.excl {
		cal.exclHolds[v]++
	}
	if p := &cal.vp[v]; p.ts != nil {
		cal.vprofAdd(p, o)
	}
}

// windowMin is the minimum of column r of p over [t, u).
func (p *profile) windowMin(r int, t, u int64) float64 {
	ts := p.ts
	i := 0
	if len(ts) > 1 && t > ts[0] {
		// Last step starting at or before t.
		k, found := slices.BinarySearch(ts, t)
		if !found {
			k--
		}
		i = k
	}
	m := p.free[i*p.nres+r]
	for k := i + 1; k < len(ts) && ts[k] < u; k++ {
		m = min(m, p.free[k*p.nres+r])
	}
	return m
}

// addHoldRows is addHold for a plan already summed per vnode (planFits):
// a kept top-job estimate is held without reading its exec list again.
// Each row is one use of its vnode, as addHold makes one per share; the
// amounts are copied, rows are scratch.
func (cal *calendar) addHoldRows(rows []planRow, start, end int64, excl bool) {
	sum := cal.sumBuf()
	for _, rw := range rows {
		var amt []float64
		if anyNonZero(rw.amt) {
			amt = cal.alloc()
			copy(amt, rw.amt)
		}
		v := rw.v
		cal.uses[v] = append(cal.uses[v], use{start: start, end: end, amt: amt, excl: excl, hold: holdTopJob})
		cal.noteUse(v)
		cal.holds[v]++
		cal.nholds++
		for r, a := range amt {
			sum[r] += a
		}
	}
	if anyNonZero(sum) {
		cal.prof.add(start, end, sum, -1)
	}
}
