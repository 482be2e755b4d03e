package model

// Soft walltime (Resource_List.soft_walltime) is what a job is expected to
// run for: the scheduler plans with it instead of walltime, nothing ever
// kills a job for passing it, and walltime stays the hard limit the agent
// enforces. Like OpenPBS, when a running job passes its (estimated) soft
// walltime the estimate grows by 100% of the original soft walltime at a
// time, never beyond walltime.

// SoftWalltimeOf returns the job's Resource_List.soft_walltime in seconds,
// or 0 when it has none (a zero soft walltime is refused at submission).
func SoftWalltimeOf(list map[string]string) int64 {
	if s, ok := list["soft_walltime"]; ok {
		if d, err := ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return 0
}

// ExtendSoftWalltime is estimated.soft_walltime after elapsed seconds of
// running: est (the previous estimate, 0 for none) or soft, whichever is
// larger, extended by whole multiples of soft until it lies beyond
// elapsed, and capped at hard (hard <= 0: no walltime). It is OpenPBS's
// extend_soft_walltime in closed form: the result does not depend on how
// often it is called.
func ExtendSoftWalltime(soft, est, hard, elapsed int64) int64 {
	if soft <= 0 {
		return 0
	}
	d := max(soft, est)
	if elapsed > d {
		// Extensions of 100% of the original soft walltime: the first
		// multiple of soft past elapsed (d is a multiple of soft, or
		// was capped at hard, which elapsed passing means the job is
		// about to be killed anyway).
		n := elapsed/soft + 1
		if n > (1<<62)/soft {
			d = 1 << 62
		} else {
			d = n * soft
		}
	}
	if hard > 0 && d > hard {
		d = hard
	}
	return d
}

// WithBuiltins returns defs with every built-in resource it lacks added:
// a cluster whose replicated definitions were seeded by an earlier
// release (before soft_walltime) still accepts the newer built-ins. It
// returns defs itself when nothing is missing.
func (defs ResourceDefs) WithBuiltins() ResourceDefs {
	var missing []ResourceDef
	for name, d := range BuiltinResources() {
		if _, ok := defs[name]; !ok {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		return defs
	}
	return defs.With(missing...)
}
