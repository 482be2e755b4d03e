package scheduler

import (
	"github.com/strata-hpc/strata/model"
)

// state is the per-cycle overlay on the snapshot's vnodes. The stored
// *model.Vnode objects are shared with the server's state store and never
// written; everything the cycle changes (resources placed, vnodes taken or
// held exclusively) lives here, indexed by the vnode's position in
// Snapshot.Vnodes. Consumables are interned into columns so the hot loops
// index flat slices instead of maps.
type state struct {
	vnodes []*model.Vnode
	defs   model.ResourceDefs
	index  map[string]int   // vnode name -> position in vnodes
	byHost map[string][]int // host name, full and short -> vnodes

	col   map[string]int // consumable resource name -> column
	names []string       // column -> resource name
	nres  int

	capa   []float64 // [v*nres+r] Capacity
	avail0 []float64 // [v*nres+r] Capacity - stored Assigned
	placed []float64 // [v*nres+r] placed earlier in this cycle (committed or tentative)

	eligible []bool // state flags allow new jobs
	used     []bool // some job runs there (stored or placed this cycle)
	held     []bool // held exclusively by a job

	hostOf []int   // vnode -> host index
	hosts  [][]int // host -> vnodes in server order
	multi  bool    // some host has several vnodes

	// eligFree is, per column, the free amount summed over vnodes that can
	// take new work (eligible and not held); total sums Capacity over all
	// vnodes. They back the "R: A: T:" comments and the cheap job-level
	// rejection before any vnode is scanned.
	eligFree []float64
	total    []float64
	// srvFree is the server-level free amount, as OpenPBS counts it for
	// "Insufficient amount of resource" (resources_available less
	// resources_assigned over every vnode, whatever its state or
	// exclusivity); it is only ever reported, never used to place.
	srvFree []float64

	// undo records every tentative placement of the current attempt so a
	// failed attempt can be rolled back without copying anything.
	undo []undoEntry
}

type undoEntry struct {
	v, r   int
	amt    float64
	before float64 // free amount before this entry was applied
}

func newState(vnodes []*model.Vnode, defs model.ResourceDefs) *state {
	s := &state{vnodes: vnodes, defs: defs, col: map[string]int{}, index: make(map[string]int, len(vnodes)), byHost: map[string][]int{}}
	for _, name := range model.SortedKeys(defs) {
		if defs[name].Consumable() {
			s.col[name] = len(s.names)
			s.names = append(s.names, name)
		}
	}
	s.nres = len(s.names)
	n := len(vnodes)
	s.capa = make([]float64, n*s.nres)
	s.avail0 = make([]float64, n*s.nres)
	s.placed = make([]float64, n*s.nres)
	s.eligible = make([]bool, n)
	s.used = make([]bool, n)
	s.held = make([]bool, n)
	s.hostOf = make([]int, n)
	s.eligFree = make([]float64, s.nres)
	s.total = make([]float64, s.nres)
	s.srvFree = make([]float64, s.nres)

	hostIdx := make(map[string]int)
	for i, v := range vnodes {
		s.index[v.Name] = i
		for r, name := range s.names {
			c := v.Capacity[name]
			s.capa[i*s.nres+r] = c
			s.avail0[i*s.nres+r] = c - v.Assigned[name]
			s.total[r] += c
			s.srvFree[r] += max(0, s.avail0[i*s.nres+r])
		}
		// resv-exclusive and maintenance mirror reservations the calendar
		// already holds: the vnode stays eligible for their own jobs and
		// for windows after them.
		s.eligible[i] = v.State&(model.Unavailable&^(model.NodeResvExclusive|model.NodeMaintenance)) == 0
		s.used[i] = len(v.Jobs) > 0 || v.ExclusiveJob != ""
		s.held[i] = v.ExclusiveJob != ""
		if s.counts(i) {
			for r := range s.names {
				s.eligFree[r] += max(0, s.avail0[i*s.nres+r])
			}
		}
		h, ok := hostIdx[v.Host]
		if !ok {
			h = len(s.hosts)
			hostIdx[v.Host] = h
			s.hosts = append(s.hosts, nil)
		}
		s.hostOf[i] = h
		s.byHost[v.Host] = append(s.byHost[v.Host], i)
		if short := shortHost(v.Host); short != v.Host {
			s.byHost[short] = append(s.byHost[short], i)
		}
		s.hosts[h] = append(s.hosts[h], i)
		if len(s.hosts[h]) > 1 {
			s.multi = true
		}
	}
	return s
}

// counts reports whether v's free resources are available to new jobs.
func (s *state) counts(v int) bool { return s.eligible[v] && !s.held[v] }

// free returns the amount of column r still free on v.
func (s *state) free(v, r int) float64 {
	i := v*s.nres + r
	return s.avail0[i] - s.placed[i]
}

// assigned is the overlay view of resources_assigned, for node sort keys.
func (s *state) assigned(v *model.Vnode, vi int, res string) float64 {
	a := v.Assigned[res]
	if r, ok := s.col[res]; ok {
		a += s.placed[vi*s.nres+r]
	}
	return a
}

// take places amt of column r on v tentatively.
func (s *state) take(v, r int, amt float64) {
	i := v*s.nres + r
	s.undo = append(s.undo, undoEntry{v: v, r: r, amt: amt, before: s.avail0[i] - s.placed[i]})
	s.placed[i] += amt
}

// mark returns the undo position to roll back or commit to.
func (s *state) mark() int { return len(s.undo) }

// rollback undoes tentative placements back to m.
func (s *state) rollback(m int) {
	for i := len(s.undo) - 1; i >= m; i-- {
		e := s.undo[i]
		s.placed[e.v*s.nres+e.r] -= e.amt
	}
	s.undo = s.undo[:m]
}

// commit makes the placements since m permanent: the vnodes become used, the
// aggregate free amounts shrink, and with excl the vnodes are held.
func (s *state) commit(m int, excl bool) {
	for _, e := range s.undo[m:] {
		s.used[e.v] = true
		s.srvFree[e.r] -= max(0, e.before) - max(0, e.before-e.amt)
		if s.counts(e.v) {
			s.eligFree[e.r] -= max(0, e.before) - max(0, e.before-e.amt)
		}
	}
	if excl {
		for _, e := range s.undo[m:] {
			s.hold(e.v)
		}
	}
	s.undo = s.undo[:m]
}

// use marks v as running a job even though nothing was consumed on it (a
// chunk asking for no consumables).
func (s *state) use(v int, excl bool) {
	s.used[v] = true
	if excl {
		s.hold(v)
	}
}

// hold reserves v for one job: its remaining free resources leave the
// aggregate pool.
func (s *state) hold(v int) {
	if s.held[v] {
		return
	}
	if s.counts(v) {
		for r := range s.names {
			s.eligFree[r] -= max(0, s.free(v, r))
		}
	}
	s.held[v] = true
	s.used[v] = true
}

// hostClean reports whether every vnode of host h is eligible and unused, as
// place=exclhost needs.
func (s *state) hostClean(h int) bool {
	for _, v := range s.hosts[h] {
		if !s.eligible[v] || s.used[v] || s.held[v] {
			return false
		}
	}
	return true
}
