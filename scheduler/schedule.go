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
}

// Schedule runs one scheduling cycle over s and returns what to do: jobs to
// start, in decision order, and job comments that changed. It is a pure
// function of s: it reads no clock, does no I/O and never modifies the
// snapshot's jobs or vnodes.
func Schedule(s *Snapshot) *Plan {
	c := newCycle(s)
	order := policy.JobOrder{ByQueue: s.Config.ByQueue, QueuePriority: queuePriorities(s.Queues)}
	for _, j := range order.SortJobs(s.Queued) {
		if j.NeverRunEpoch != 0 && j.NeverRunEpoch == s.Epoch {
			continue // judged impossible and nothing changed since
		}
		c.consider(j)
	}
	return c.plan
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

func queuePriorities(qs map[string]Queue) map[string]int {
	out := make(map[string]int, len(qs))
	for name, q := range qs {
		out[name] = q.Priority
	}
	return out
}

// consider tries to run one job and records its comment if it cannot.
func (c *cycle) consider(j *model.Job) {
	c.keyBuf = appendClassKey(c.keyBuf[:0], j)
	cl, ok := c.classes[string(c.keyBuf)] // no allocation for a lookup
	if !ok {
		key := string(c.keyBuf)
		cl = c.compileClass(key, j)
		c.classes[key] = cl
	}
	if !cl.failed {
		if exec, ok := c.run(cl); ok {
			c.plan.Runs = append(c.plan.Runs, Decision{JobID: j.ID, Exec: exec, Exclusive: cl.excl})
			return
		}
		cl.failed = true
		cl.comment, cl.neverRun = c.explain(cl)
	}
	if cl.neverRun || cl.comment != j.Comment {
		c.plan.Comments = append(c.plan.Comments, JobComment{JobID: j.ID, Comment: cl.comment, NeverRun: cl.neverRun})
	}
}

// run places one job of class cl and commits the placement to the overlay.
func (c *cycle) run(cl *class) ([]model.ExecChunk, bool) {
	st := c.st
	for r, need := range cl.need {
		if need > st.eligFree[r] {
			return nil, false // not enough anywhere: skip the vnode scan
		}
	}
	for _, ch := range cl.chunks {
		if ch.missing != "" {
			return nil, false
		}
	}
	c.advanceCursors(cl)
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
			return c.commit(cl, m), true
		}
		st.rollback(m)
		c.resort()
	}
	return nil, false
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
