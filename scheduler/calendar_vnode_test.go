package scheduler

import (
	"math/rand/v2"
	"testing"
)

// walkDelta is the direct definition of freeDelta that the per-vnode
// profiles replace: the free change at t, and at every hold start inside
// the window (free amounts only drop there).
func walkDelta(us []use, r int, t, u int64) float64 {
	at := func(tau int64) float64 {
		var d float64
		for i := range us {
			o := &us[i]
			if o.amt == nil {
				continue
			}
			if o.hold != 0 {
				if o.start <= tau && tau < o.end {
					d -= o.amt[r]
				}
			} else if o.end <= tau {
				d += o.amt[r]
			}
		}
		return d
	}
	m := at(t)
	for i := range us {
		if o := &us[i]; o.hold != 0 && o.start > t && o.start < u {
			m = min(m, at(o.start))
		}
	}
	return m
}

// The per-vnode profile gives the same window minimum as walking the uses,
// whether it is built after the uses or kept up to date as they come.
func TestVnodeProfileMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const now, nres = 1000, 2
	for trial := 0; trial < 300; trial++ {
		cal := &calendar{now: now, nres: nres, uses: make([][]use, 2), vp: make([]profile, 2), exclHolds: make([]int, 2)}
		n := 1 + rng.IntN(12)
		for k := 0; k < n; k++ {
			amt := []float64{float64(rng.IntN(4)), float64(rng.IntN(3))}
			if rng.IntN(5) == 0 {
				amt = nil
			}
			var o use
			switch rng.IntN(3) {
			case 0: // running, ends at a known time (maybe already due)
				o = use{start: now, end: now + int64(rng.IntN(50)) - 5, amt: amt}
			case 1: // running for ever
				o = use{start: now, end: forever, amt: amt}
			default: // a hold in the future, sometimes for ever
				s := now + int64(rng.IntN(60))
				e := s + 1 + int64(rng.IntN(40))
				if rng.IntN(8) == 0 {
					e = forever
				}
				o = use{start: s, end: e, amt: amt, hold: holdTopJob}
			}
			// Vnode 0 gets its profile built first and updated; vnode 1
			// builds it from all uses at the end.
			for v := 0; v < 2; v++ {
				cal.uses[v] = append(cal.uses[v], o)
				cal.noteUse(v)
			}
			if k == 0 {
				cal.vprofile(0)
			}
		}
		for q := 0; q < 40; q++ {
			tq := now + int64(rng.IntN(70))
			uq := tq + int64(rng.IntN(60))
			if rng.IntN(6) == 0 {
				uq = forever
			}
			for r := 0; r < nres; r++ {
				want := walkDelta(cal.uses[0], r, tq, uq)
				for v := 0; v < 2; v++ {
					if got := cal.freeDelta(v, r, tq, uq); got != want {
						t.Fatalf("trial %d vnode %d col %d [%d,%d): got %v, want %v (uses %+v)", trial, v, r, tq, uq, got, want, cal.uses[0])
					}
				}
			}
		}
	}
}
