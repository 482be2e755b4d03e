package scheduler

// window is the time span a placement must fit in. Off, placement looks at
// the overlay alone (what is free now), as it always did. On, each vnode
// must also have the resources for the whole of [t, u) according to the
// calendar: for a job starting now that only changes vnodes with future
// holds; for a top job's estimate (future) it is the resources released by
// then minus what earlier top jobs hold.
type window struct {
	on     bool
	future bool // t is after now: cursors (which describe now) do not apply
	t, u   int64
}

// free is the amount of column r on v a placement may use.
func (c *cycle) free(v, r int) float64 {
	f := c.st.free(v, r)
	if c.win.on && (c.win.future || c.cal.holds[v] > 0) {
		f += c.cal.freeDelta(v, r, c.win.t, c.win.u)
	}
	return f
}

// held reports whether v is held exclusively by another job (now, or at
// some point of the window).
func (c *cycle) held(v int) bool {
	if !c.win.on {
		return c.st.held[v]
	}
	return c.cal.busy(v, c.win.t, c.win.u, false)
}

// used reports whether any job uses v (now, or during the window), which
// keeps place=excl jobs off it.
func (c *cycle) used(v int) bool {
	if !c.win.on {
		return c.st.used[v]
	}
	return c.cal.busy(v, c.win.t, c.win.u, true)
}

// hostClean reports whether every vnode of host h is eligible and unused,
// as place=exclhost needs.
func (c *cycle) hostClean(h int) bool {
	if !c.win.on {
		return c.st.hostClean(h)
	}
	for _, v := range c.st.hosts[h] {
		if !c.st.eligible[v] || c.used(v) {
			return false
		}
	}
	return true
}

// end is t + dur, or forever for an unknown duration (dur < 0).
func end(t, dur int64) int64 {
	if dur < 0 || t > forever-dur {
		return forever
	}
	return t + dur
}
