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
		cal.profile().add(start, end, sum, -1)
	}
}

// fitsFrom is fits for a scan that already knows the steps before i fit:
// it reports whether need fits in every step from i to the one before u.
// On failure it returns the step that failed; on success the first step
// not checked (at or after u), so that the next start's check resumes
// there and a whole estimate stays linear in steps (the windows of later
// starts end later).
func (p *profile) fitsFrom(i int, u int64, need []float64) (int, bool) {
	k := i
	for ; k < len(p.ts) && p.ts[k] < u; k++ {
		for r, n := range need {
			if n > 0 && p.free[k*p.nres+r] < n {
				return k, false
			}
		}
	}
	return k, true
}

// Exclusive jobs at future times. A place=excl job may only use vnodes
// that nothing uses during its window, so besides the cluster total it
// needs its total on vnodes whose running jobs have all ended by its
// start. The aggregate profile cannot tell (at most times the cluster has
// enough free, spread over vnodes each running something), and each
// placement attempt at such a time scanned every vnode in vain. unused
// answers, for a start t, the most that vnodes unused from t on could
// give: it sorts eligible vnodes by usedUntil once (rebuilt after a job
// starts in the cycle) and keeps cumulative amounts.
type unusedIndex struct {
	ok   bool
	ts   []int64   // usedUntil, ascending
	cum  []float64 // [k*nres+r]: sum over the first k+1 vnodes
	sort []int     // scratch: eligible vnodes
}

// unusedFits reports whether need could fit on vnodes unused from t on. It
// is a necessary condition for an exclusive placement at t.
func (cal *calendar) unusedFits(st *state, t int64, need []float64) bool {
	x := &cal.unused
	if !x.ok {
		cal.buildUnused(st)
	}
	n, _ := slices.BinarySearch(x.ts, t+1) // entries with usedUntil <= t
	if n == 0 {
		return false
	}
	row := x.cum[(n-1)*cal.nres : n*cal.nres]
	for r, a := range need {
		if a > 0 && row[r] < a {
			return false
		}
	}
	return true
}

func (cal *calendar) buildUnused(st *state) {
	x := &cal.unused
	x.sort = x.sort[:0]
	for v := range st.vnodes {
		if st.eligible[v] && cal.usedUntil[v] != forever {
			x.sort = append(x.sort, v)
		}
	}
	slices.SortFunc(x.sort, func(a, b int) int {
		switch ua, ub := cal.usedUntil[a], cal.usedUntil[b]; {
		case ua < ub:
			return -1
		case ua > ub:
			return 1
		}
		return a - b
	})
	x.ts = x.ts[:0]
	x.cum = x.cum[:0]
	prev := make([]float64, cal.nres)
	for _, v := range x.sort {
		x.ts = append(x.ts, cal.usedUntil[v])
		// The most v can ever have free: free now plus everything its
		// running jobs give back.
		for r := range prev {
			b := st.free(v, r)
			for i := range cal.uses[v] {
				if o := &cal.uses[v][i]; o.hold == 0 && o.amt != nil {
					b += o.amt[r]
				}
			}
			prev[r] += max(0, b)
		}
		x.cum = append(x.cum, prev...)
	}
	x.ok = true
}

// placeCands is placeFree's loop for one pinned chunk: each copy goes to
// the first vnode in node order, among the chunk's candidates, that holds
// it, exactly as the scan over the whole order would choose (every other
// vnode is not allowed).
func (c *cycle) placeCands(cl *class, ci int, vscatter bool) bool {
	o, a := c.order, &c.att
	ch := &cl.chunks[ci]
	for k := 0; k < ch.count; k++ {
		best := -1
		for _, v := range ch.cands {
			if best >= 0 && o.pos[v] > o.pos[best] {
				continue
			}
			if vscatter && a.vstamp[v] == a.cur {
				continue
			}
			if c.holds(v, ch, cl) {
				best = v
			}
		}
		if best < 0 {
			return false
		}
		a.out[ci] = append(a.out[ci], c.takeWhole(best, ch))
		a.vstamp[best] = a.cur
		if o.dynamic {
			o.update(best)
		}
	}
	return true
}
