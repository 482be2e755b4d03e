package scheduler

import (
	"github.com/strata-hpc/strata/model"
)

// neverRun decides whether a class can never run with the vnodes that exist
// (in any state, empty). Unlike OpenPBS, which only compares job totals with
// cluster totals, each chunk is judged against the units it may use: one
// vnode, or one host when chunks may be split (pack, scatter). Every check
// is a necessary condition for running, so a "never" is never wrong; the
// job is looked at again when Snapshot.Epoch moves.
func (c *cycle) neverRun(cl *class) (string, bool) {
	st := c.st
	for _, ch := range cl.chunks {
		if ch.missing != "" {
			return c.insufficient(ch.missing, ch.missingAmt, 0, 0), true
		}
	}
	for _, r := range c.columns() {
		if cl.need[r] > st.total[r] {
			return c.insufficient(st.names[r], cl.need[r], st.eligFree[r], st.total[r]), true
		}
	}
	units := c.units(cl)
	for i := range cl.chunks {
		ch := &cl.chunks[i]
		if msg, never := c.unmatched(ch); never {
			return msg, true
		}
		best := c.bestUnitsOf(cl, ch, units)
		if best.fit == 0 {
			if r, ok := best.short(ch); ok {
				name := st.names[ch.need[r].r]
				return c.insufficient(name, ch.need[r].amt, best.free[r], best.cap[r]), true
			}
			return msgNoTotalNodes, true
		}
		spread := cl.arrangement == model.PlaceScatter || cl.arrangement == model.PlaceVScatter
		if spread && best.fit < ch.count {
			return msgNoTotalNodes, true
		}
	}
	switch cl.arrangement {
	case model.PlaceScatter, model.PlaceVScatter:
		if c.spreadImpossible(cl, units) {
			return msgNoTotalNodes, true
		}
	case model.PlacePack:
		if msg, never := c.packImpossible(cl, units); never {
			return msg, true
		}
	}
	return "", false
}

// units returns the placement units of a class: each vnode alone, or each
// host's vnodes together when chunks may be split.
func (c *cycle) units(cl *class) [][]int {
	st := c.st
	if c.hostUnits(cl) {
		return st.hosts
	}
	if c.singles == nil {
		idx := make([]int, len(st.vnodes))
		c.singles = make([][]int, len(st.vnodes))
		for v := range idx {
			idx[v] = v
			c.singles[v] = idx[v : v+1 : v+1]
		}
	}
	return c.singles
}

// hostUnits reports whether a class is judged per host rather than per
// vnode: chunks may be split across a host's vnodes, or pack needs one host.
func (c *cycle) hostUnits(cl *class) bool {
	return cl.split || (cl.arrangement == model.PlacePack && c.st.multi)
}

// chunkUnits narrows units to those holding a pinned chunk's candidates.
func (c *cycle) chunkUnits(cl *class, ch *chunkReq, units [][]int) [][]int {
	if ch.cands == nil {
		return units
	}
	st := c.st
	var out [][]int
	seen := map[int]bool{}
	for _, v := range ch.cands {
		if c.hostUnits(cl) {
			h := st.hostOf[v]
			if !seen[h] {
				seen[h] = true
				out = append(out, st.hosts[h])
			}
			continue
		}
		out = append(out, []int{v})
	}
	return out
}

// unitBest summarizes the units a chunk matches: how many could ever hold a
// copy, the largest capacity and the largest free amount now of each
// resource the chunk needs.
type unitBest struct {
	fit  int
	cap  []float64
	free []float64
}

// short returns the index of the first need no single unit has enough of.
func (b unitBest) short(ch *chunkReq) (int, bool) {
	for i, n := range ch.need {
		if b.cap[i] < n.amt {
			return i, true
		}
	}
	return 0, false
}

// bestUnitsOf is bestUnits with the capacity part shared, within a cycle,
// by every class whose chunk has the same shape and no constraints: how
// many units could ever hold a copy does not change during a cycle, so a
// queue of many job sizes pays one scan per shape, not one per class. The
// free amounts only matter for a "never" verdict, which is rescanned.
func (c *cycle) bestUnitsOf(cl *class, ch *chunkReq, units [][]int) unitBest {
	if ch.constrained {
		return c.bestUnits(ch, c.chunkUnits(cl, ch, units))
	}
	key := bestKey{ch.cur, c.hostUnits(cl)}
	b, ok := c.bestMemo[key]
	if !ok {
		b = c.bestUnits(ch, units)
		if c.bestMemo == nil {
			c.bestMemo = map[bestKey]unitBest{}
		}
		c.bestMemo[key] = b
	}
	if b.fit == 0 {
		return c.bestUnits(ch, units)
	}
	return b
}

type bestKey struct {
	cur  *cursor
	host bool
}

func (c *cycle) bestUnits(ch *chunkReq, units [][]int) unitBest {
	st := c.st
	b := unitBest{cap: make([]float64, len(ch.need)), free: make([]float64, len(ch.need))}
	capSum := make([]float64, len(ch.need))
	freeSum := make([]float64, len(ch.need))
	for _, u := range units {
		matched := false
		clear(capSum)
		clear(freeSum)
		for _, v := range u {
			if !ch.allows(v) {
				continue
			}
			matched = true
			for i, n := range ch.need {
				capSum[i] += st.capa[v*st.nres+n.r]
				if st.counts(v) {
					freeSum[i] += max(0, st.free(v, n.r))
				}
			}
		}
		if !matched {
			continue
		}
		fit := true
		for i, n := range ch.need {
			b.cap[i] = max(b.cap[i], capSum[i])
			b.free[i] = max(b.free[i], freeSum[i])
			if capSum[i] < n.amt {
				fit = false
			}
		}
		if fit {
			b.fit++
		}
	}
	return b
}

// unmatched reports a chunk whose non-consumable constraints no vnode meets,
// naming the first constraint that leaves no candidate.
func (c *cycle) unmatched(ch *chunkReq) (string, bool) {
	if !ch.constrained || len(ch.cands) > 0 {
		return "", false
	}
	for _, ok := range ch.allowed {
		if ok {
			return "", false
		}
	}
	cands := c.st.vnodes
	if ch.cands != nil {
		cands = nil
		for _, m := range ch.matchers {
			if m.kind == matchHost || m.kind == matchVnode {
				if pinned := c.pinned([]matcher{m}); len(pinned) == 0 {
					return msgInsufficientOf + m.name + " (R: " + m.value + " A: none T: none)", true
				}
			}
		}
		for _, v := range c.pinned(ch.matchers) {
			cands = append(cands, c.st.vnodes[v])
		}
	}
	for _, m := range ch.matchers {
		var next []*model.Vnode
		for _, v := range cands {
			if m.match(v) {
				next = append(next, v)
			}
		}
		if len(next) == 0 {
			return msgInsufficientOf + m.name + " (R: " + m.value + " A: none T: none)", true
		}
		cands = next
	}
	return msgNoTotalNodes, true
}

// spreadImpossible: scatter and vscatter need a distinct unit per copy, so
// there must be at least as many units able to hold some chunk as copies.
func (c *cycle) spreadImpossible(cl *class, units [][]int) bool {
	total := 0
	for _, ch := range cl.chunks {
		total += ch.count
	}
	able := 0
	for _, u := range units {
		for i := range cl.chunks {
			if c.unitCouldHold(u, &cl.chunks[i]) {
				able++
				break
			}
		}
	}
	return able < total
}

// unitCouldHold reports whether an empty unit could hold one copy.
func (c *cycle) unitCouldHold(u []int, ch *chunkReq) bool {
	st := c.st
	matched := false
	for _, n := range ch.need {
		var sum float64
		for _, v := range u {
			if ch.allows(v) {
				sum += st.capa[v*st.nres+n.r]
			}
		}
		if sum < n.amt {
			return false
		}
	}
	for _, v := range u {
		if ch.allows(v) {
			matched = true
		}
	}
	return matched
}

// packImpossible: pack needs one unit (host) holding every chunk at once.
func (c *cycle) packImpossible(cl *class, units [][]int) (string, bool) {
	st := c.st
	bestCap := make([]float64, st.nres)
	bestFree := make([]float64, st.nres)
	for _, u := range units {
		ok := true
		for r, need := range cl.need {
			var capSum, freeSum float64
			for _, v := range u {
				capSum += st.capa[v*st.nres+r]
				if st.counts(v) {
					freeSum += max(0, st.free(v, r))
				}
			}
			bestCap[r] = max(bestCap[r], capSum)
			bestFree[r] = max(bestFree[r], freeSum)
			if capSum < need {
				ok = false
			}
		}
		for i := range cl.chunks {
			if ok && !c.unitCouldHold(u, &cl.chunks[i]) {
				ok = false
			}
		}
		if ok {
			return "", false
		}
	}
	for _, r := range c.columns() {
		if cl.need[r] > bestCap[r] {
			return c.insufficient(st.names[r], cl.need[r], bestFree[r], bestCap[r]), true
		}
	}
	return msgNoTotalNodes, true
}
