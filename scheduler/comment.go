package scheduler

import (
	"strconv"

	"github.com/strata-hpc/strata/model"
)

// Comment prefixes and texts, as OpenPBS words them (job_info.cpp).
const (
	prefixNotRunning  = "Not Running: "
	prefixNeverRun    = "Can Never Run: "
	msgNoFreeNodes    = "Not enough free nodes available"
	msgNoTotalNodes   = "Not enough total nodes available"
	msgExclInUse      = "Job is requesting an exclusive node and node is in use"
	msgIneligible     = "Node is in an ineligible state: "
	msgInsufficientOf = "Insufficient amount of resource: "
)

// NotRunning is the comment of a job that cannot run now for reason why.
func NotRunning(why string) string { return prefixNotRunning + why }

// insufficient formats "Insufficient amount of resource: ncpus (R: 2 A: 1 T: 2)".
func (c *cycle) insufficient(name string, r, a, t float64) string {
	return msgInsufficientOf + name + " (R: " + c.amount(name, r) + " A: " + c.amount(name, a) + " T: " + c.amount(name, t) + ")"
}

// amount prints a resource amount the way users wrote it (sizes as "8gb").
func (c *cycle) amount(name string, v float64) string {
	if c.defs[name].Type == model.TypeSize {
		return model.FormatSize(int64(v))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// explain says why a class of jobs cannot run: first whether it never can
// with the vnodes that exist, then what is missing now.
func (c *cycle) explain(cl *class) (string, bool) {
	if msg, never := c.psetNever(cl); never { // placement sets hook point (psets.go)
		return prefixNeverRun + msg, true
	}
	if msg, never := c.neverRun(cl); never {
		return prefixNeverRun + msg, true
	}
	return prefixNotRunning + c.notNow(cl), false
}

// columns lists resource columns with ncpus and mem first, as PBS reports
// them, then the rest by name.
func (c *cycle) columns() []int {
	st := c.st
	var cols []int
	for _, name := range []string{"ncpus", "mem"} {
		if r, ok := st.col[name]; ok {
			cols = append(cols, r)
		}
	}
	for r, name := range st.names {
		if name != "ncpus" && name != "mem" {
			cols = append(cols, r)
		}
	}
	return cols
}

// notNow explains a class that could run some day but not in this cycle.
// Vnode states come first (the most actionable reason), then exclusivity,
// then resources summed over the whole cluster, then per chunk.
func (c *cycle) notNow(cl *class) string {
	st := c.st
	views := make([]chunkView, len(cl.chunks))
	for i := range cl.chunks {
		views[i] = c.viewChunk(cl, &cl.chunks[i])
	}
	for _, w := range views {
		if !w.anyEligible && w.firstBad >= 0 {
			return msgIneligible + st.vnodes[w.firstBad].State.String()
		}
	}
	if cl.excl {
		for _, w := range views {
			if !w.anyUsable {
				return msgExclInUse
			}
		}
	}
	// As OpenPBS: "Insufficient amount of resource" is the server-level
	// check (what is free over every vnode); when that passes but no set
	// of vnodes takes the job now (some are offline, held exclusively,
	// or the free amounts are spread too thin), "Not enough free nodes
	// available".
	for _, r := range c.columns() {
		if cl.need[r] > st.srvFree[r] {
			return c.insufficient(st.names[r], cl.need[r], st.srvFree[r], st.total[r])
		}
	}
	return msgNoFreeNodes
}

// all lists every vnode index, built once per cycle when needed.
func (c *cycle) all() []int {
	if c.allIdx == nil {
		c.allIdx = make([]int, len(c.st.vnodes))
		for v := range c.allIdx {
			c.allIdx[v] = v
		}
	}
	return c.allIdx
}

// chunkView summarizes the vnodes a chunk's constraints allow: the first
// one in a state that takes no jobs, whether any is eligible, whether any is
// usable by this class now, and the free and total amounts of each resource
// the chunk needs over them.
type chunkView struct {
	firstBad    int
	anyEligible bool
	anyUsable   bool
	free, capa  []float64
}

func (c *cycle) viewChunk(cl *class, ch *chunkReq) chunkView {
	st := c.st
	w := chunkView{firstBad: -1, free: make([]float64, len(ch.need)), capa: make([]float64, len(ch.need))}
	if !ch.constrained && !cl.excl {
		// No constraint and no exclusivity: the chunk sees the whole
		// cluster, whose free and total amounts the overlay keeps anyway.
		e := c.eligibility()
		w.firstBad, w.anyEligible, w.anyUsable = e.firstBad, e.any, e.any
		for i, n := range ch.need {
			w.free[i], w.capa[i] = st.eligFree[n.r], st.total[n.r]
		}
		return w
	}
	vs := ch.cands
	if vs == nil {
		vs = c.all()
	}
	for _, v := range vs {
		if !ch.allows(v) {
			continue
		}
		for i, n := range ch.need {
			w.capa[i] += st.capa[v*st.nres+n.r]
		}
		if !st.eligible[v] {
			if w.firstBad < 0 {
				w.firstBad = v
			}
			continue
		}
		w.anyEligible = true
		if !c.usable(v, ch, cl) {
			continue
		}
		w.anyUsable = true
		for i, n := range ch.need {
			w.free[i] += max(0, st.free(v, n.r))
		}
	}
	return w
}

// eligInfo is the cluster-wide part of a chunk view: the first vnode in a
// state that takes no jobs and whether any vnode takes jobs. States do not
// change during a cycle, so it is computed once.
type eligInfo struct {
	firstBad int
	any      bool
}

func (c *cycle) eligibility() *eligInfo {
	if c.elig == nil {
		e := &eligInfo{firstBad: -1}
		for v, ok := range c.st.eligible {
			if ok {
				e.any = true
			} else if e.firstBad < 0 {
				e.firstBad = v
			}
		}
		c.elig = e
	}
	return c.elig
}
