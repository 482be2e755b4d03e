package scheduler

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// cycle is the working state of one Schedule call.
type cycle struct {
	snap    *Snapshot
	defs    model.ResourceDefs
	st      *state
	order   *vnodeOrder
	classes map[string]*class
	cursors map[string]*cursor
	att     attempt
	touched []int   // vnodes given shares by the current attempt
	singles [][]int // each vnode as its own placement unit, built on demand
	allIdx  []int   // 0..len(vnodes)-1, built on demand
	keyBuf  []byte  // scratch for class keys
	plan    *Plan

	// Strict ordering and the calendar (see strict.go).
	win      window
	cal      *calendar // built at the first estimate
	started  []started // jobs started before the calendar existed
	topAll   int       // top jobs counted against the server's depth
	topQueue map[string]int
	blockAll bool            // a blocked job with backfill_depth 0 stops everything after it
	blockQ   map[string]bool // ... or the rest of its queue (queue backfill_depth 0)

	bestMemo map[bestKey]unitBest // see bestUnitsOf
	elig     *eligInfo            // see eligibility
	ranked   bool                 // avoid_provision order in force (aoe.go): cursors do not apply
	la       *lookahead           // lookahead_provision state (aoe_lookahead.go)
	scratch  []float64            // planFits
	rows     []planRow            // planFits
	rowOf    []int                // planFits: vnode -> row+1
	pre      *preemptState        // preempt_cycle.go, built on first use

	// Soft walltime (softwall.go): hardEnds plans with walltime only
	// (reservation confirmation); hardDur is the hard duration of the
	// job being considered.
	hardEnds bool
	hardDur  int64

	// Placement sets (psets.go): the sets per list of keys, the sets of
	// each class that has some, and while placing inside one set its
	// members (pmask) and that the set loop is running (psetActive).
	psetCache  map[string]*psetIndex
	psetIdx    []*psetIndex // the same, in creation order
	psetOf     map[*class][]*pset
	psetFit    map[*class][]bool // per class and set: could hold it (psets.go)
	pmask      []bool
	psetMask   []bool // backing store of pmask, all false between sets
	psetPos    []int  // vnode positions in the order narrowed to a set
	psetActive bool
}

// started is a job started in this cycle, for the calendar.
type started struct {
	exec []model.ExecChunk
	end  int64
	excl bool
	resv string // the reservation it runs in (resv.go), if any
}

// Schedule runs one scheduling cycle over s and returns what to do: jobs to
// start, in decision order, job comments that changed and top-job estimates
// that changed. It is a pure function of s: it reads no clock, does no I/O
// and never modifies the snapshot's jobs or vnodes.
func Schedule(s *Snapshot) *Plan {
	c := newCycle(s)
	c.plan.Comments = append(c.plan.Comments, s.Withheld...)
	c.extendSoftWalltimes() // soft walltime hook point (softwall.go)
	order := JobOrder(s)
	// Reservation hook point (resv.go): confirm or deny new reservations,
	// run the jobs of running ones on their vnodes, and hold reserved
	// vnodes in the calendar. It returns the other queued jobs.
	queued := c.reservations()
	ranked := rank(s, order, queued)
	c.orderByPreemptLevel(ranked) // preemption hook point (preempt_cycle.go)
	for _, r := range ranked {
		j := r.Job
		c.resumeBefore(j)
		if j.NeverRunEpoch() != 0 && j.NeverRunEpoch() == s.Epoch {
			c.clearTop(j)
			continue // judged impossible and nothing changed since
		}
		if j.Array != nil {
			c.considerArray(j, r.Formula)
			continue
		}
		c.consider(j, r.Formula)
	}
	c.resumeBefore(nil)
	return c.plan
}

// rank returns the queued jobs in cycle order with their formula values:
// as given when the snapshot says they are ranked already (a subsequence
// of a ranked list is ranked: the order is total), sorted otherwise.
func rank(s *Snapshot, order policy.JobOrder, queued []*model.Job) []policy.Ranked {
	if !s.QueuedRanked || s.Config.RoundRobin {
		return order.Rank(queued)
	}
	out := make([]policy.Ranked, len(queued))
	for i, j := range queued {
		out[i] = policy.Ranked{Job: j}
		if order.Formula != nil {
			out[i].Formula = order.FormulaValue(j)
		}
	}
	return out
}

func newCycle(s *Snapshot) *cycle {
	defs := s.Defs
	if defs == nil {
		defs = model.BuiltinResources()
	}
	keys := s.Config.NodeSortKeys
	if len(keys) == 0 {
		keys = policy.DefaultNodeSortKeys()
	}
	st := newState(s.Vnodes, defs)
	c := &cycle{
		snap:    s,
		defs:    defs,
		st:      st,
		order:   newVnodeOrder(st, keys),
		classes: map[string]*class{},
		cursors: map[string]*cursor{},
		plan:    &Plan{},
	}
	c.att.vstamp = make([]uint32, len(s.Vnodes))
	c.att.hstamp = make([]uint32, len(st.hosts))
	return c
}

// verdict is the outcome of trying to start a job now.
type verdict int

const (
	noFit     verdict = iota // not enough free now (the class's comment says why)
	ran                      // placed and committed
	conflicts                // fits now but would delay a top job or reservation
)

// run places one job of class cl and commits the placement to the overlay.
// dur is the job's walltime for the calendar (< 0: unknown), used only
// when some vnode has a future hold.
func (c *cycle) run(cl *class, dur int64) ([]model.ExecChunk, verdict) {
	st := c.st
	for r, need := range cl.need {
		if need > st.eligFree[r] {
			return nil, noFit // not enough anywhere: skip the vnode scan
		}
	}
	for _, ch := range cl.chunks {
		if ch.missing != "" {
			return nil, noFit
		}
	}
	c.advanceCursors(cl)
	m, ok := c.attempt(cl)
	if !ok {
		return nil, noFit
	}
	if c.cal != nil && c.cal.nholds > 0 && c.touchesHold(cl) {
		// What fits now may still take what a top job was promised: place
		// again with the whole walltime checked against the calendar.
		// Longer jobs of a class that conflicted conflict too.
		st.rollback(m)
		c.resort()
		now := c.snap.Now
		u := c.windowEnd(now, dur) // soft walltime hook point (softwall.go)
		if cl.conflictEnd != 0 && u-now >= cl.conflictEnd {
			return nil, conflicts
		}
		c.win = window{on: true, t: now, u: u}
		m, ok = c.attempt(cl)
		c.win = window{}
		if !ok {
			if cl.conflictEnd == 0 || u-now < cl.conflictEnd {
				cl.conflictEnd = u - now
			}
			return nil, conflicts
		}
	}
	exec := c.commit(cl, m)
	if c.snap.Config.StrictOrdering || c.cal != nil {
		e := end(c.snap.Now, dur)
		if c.cal != nil {
			c.cal.addRunning(st, exec, e, cl.excl)
		} else {
			c.started = append(c.started, started{exec: exec, end: e, excl: cl.excl})
		}
	}
	return exec, ran
}

// attempt tries the class's chunk orders at the current window. On success
// the placement is left tentative in the overlay (commit or roll back to
// the returned mark); on failure nothing is left.
func (c *cycle) attempt(cl *class) (int, bool) {
	if sets, ok := c.psetOf[cl]; ok && !c.psetActive { // placement sets hook point (psets.go)
		return c.attemptPsets(cl, sets)
	}
	st := c.st
	if restore := c.rankForAOE(cl); restore != nil { // provisioning hook point
		defer restore()
	}
	for _, ord := range cl.orders {
		m := st.mark()
		c.touched = c.touched[:0]
		c.att.reset(len(cl.chunks))
		var ok bool
		switch cl.arrangement {
		case model.PlacePack:
			ok = c.placePack(cl, ord)
		case model.PlaceScatter:
			ok = c.placeScatter(cl, ord)
		case model.PlaceVScatter:
			ok = c.placeFree(cl, ord, true)
		default:
			ok = c.placeFree(cl, ord, false)
		}
		if ok {
			return m, true
		}
		st.rollback(m)
		c.resort()
	}
	return 0, false
}

// touchesHold reports whether the tentative placement uses a vnode (or, for
// exclhost, a host) with a future hold.
func (c *cycle) touchesHold(cl *class) bool {
	for _, v := range c.touched {
		if c.cal.holds[v] > 0 {
			return true
		}
		if cl.exclhost {
			for _, w := range c.st.hosts[c.st.hostOf[v]] {
				if c.cal.holds[w] > 0 {
					return true
				}
			}
		}
	}
	return false
}

// commit makes the current attempt permanent and builds the exec list in
// select order.
func (c *cycle) commit(cl *class, m int) []model.ExecChunk {
	st := c.st
	n := 0
	for _, o := range c.att.out {
		n += len(o)
	}
	exec := make([]model.ExecChunk, 0, n)
	for _, o := range c.att.out {
		exec = append(exec, o...)
	}
	if cl.exclhost {
		exec = c.addWholeHosts(exec)
	}
	st.commit(m, cl.excl)
	// Shares without consumables (and exclhost's extra vnodes) left no
	// undo entry, so mark every touched vnode explicitly.
	for _, v := range c.touched {
		st.use(v, cl.excl)
	}
	c.resort()
	return exec
}

// addWholeHosts adds, for place=exclhost, every other vnode of each host the
// job uses as an empty share of the job's first chunk on that host, and
// records them as touched so they are held.
func (c *cycle) addWholeHosts(exec []model.ExecChunk) []model.ExecChunk {
	st := c.st
	inJob := make(map[int]bool, len(c.touched))
	for _, v := range c.touched {
		inJob[v] = true
	}
	seenHost := map[int]bool{}
	for i := range exec {
		h := st.hostOf[st.index[exec[i].Shares[0].Vnode]]
		if seenHost[h] {
			continue
		}
		seenHost[h] = true
		for _, v := range st.hosts[h] {
			if inJob[v] {
				continue
			}
			vn := st.vnodes[v]
			exec[i].Shares = append(exec[i].Shares, model.VnodeShare{Vnode: vn.Name, Host: vn.Host})
			c.touched = append(c.touched, v)
			inJob[v] = true
		}
	}
	return exec
}

// resort moves the vnodes the last attempt touched to their new place in
// node order (only does work with assigned/unused keys).
func (c *cycle) resort() {
	if !c.order.dynamic {
		return
	}
	for _, v := range c.touched {
		c.order.update(v)
	}
}
