package scheduler

import (
	"github.com/strata-hpc/strata/model"
)

// attempt is the scratch space of placing one job: per-chunk results and the
// stamps that keep scatter/vscatter from reusing a host or vnode. It is
// reused across jobs so a placement allocates only what the RunDecision keeps.
type attempt struct {
	out    [][]model.ExecChunk // per chunk index: one entry per copy
	vstamp []uint32            // vnode used by this attempt when == cur
	hstamp []uint32            // host used by this attempt when == cur
	cur    uint32
}

func (a *attempt) reset(nchunks int) {
	a.cur++
	if cap(a.out) < nchunks {
		a.out = make([][]model.ExecChunk, nchunks)
	}
	a.out = a.out[:nchunks]
	for i := range a.out {
		a.out[i] = a.out[i][:0]
	}
}

// usable reports whether v may take (part of) a copy of ch for a job of
// class cl, ignoring its free resources.
func (c *cycle) usable(v int, ch *chunkReq, cl *class) bool {
	st := c.st
	if !st.eligible[v] || c.held(v) {
		return false
	}
	if c.pmask != nil && !c.pmask[v] { // placement sets hook point (psets.go)
		return false
	}
	if !ch.allows(v) {
		return false
	}
	if cl.excl && c.used(v) {
		return false
	}
	if !c.provUsable(v, ch) { // provisioning hook point (aoe.go)
		return false
	}
	return !cl.exclhost || c.hostClean(st.hostOf[v])
}

// fits reports whether one whole copy of ch fits in v's free resources.
func (c *cycle) fits(v int, ch *chunkReq) bool {
	if ch.missing != "" {
		return false
	}
	for _, n := range ch.need {
		if c.free(v, n.r) < n.amt {
			return false
		}
	}
	return true
}

// holds reports whether v can take one whole copy of ch now.
func (c *cycle) holds(v int, ch *chunkReq, cl *class) bool {
	return c.usable(v, ch, cl) && c.fits(v, ch)
}

// takeWhole places one copy of ch on v.
func (c *cycle) takeWhole(v int, ch *chunkReq) model.ExecChunk {
	vn := c.st.vnodes[v]
	share := model.VnodeShare{Vnode: vn.Name, Host: vn.Host}
	if len(ch.need) > 0 {
		share.Amounts = make(map[string]float64, len(ch.need))
	}
	for _, n := range ch.need {
		share.Amounts[c.st.names[n.r]] = n.amt
		if n.amt > 0 {
			c.st.take(v, n.r, n.amt)
		}
	}
	c.touched = append(c.touched, v)
	return model.ExecChunk{Shares: []model.VnodeShare{share}, MPIProcs: ch.mpiprocs}
}

// hostCanSplit reports whether the usable vnodes of one host together have
// room for a copy of ch.
func (c *cycle) hostCanSplit(vs []int, ch *chunkReq, cl *class) bool {
	if ch.missing != "" {
		return false
	}
	usable := false
	for _, n := range ch.need {
		var sum float64
		for _, v := range vs {
			if c.usable(v, ch, cl) {
				sum += max(0, c.free(v, n.r))
			}
		}
		if sum < n.amt {
			return false
		}
	}
	for _, v := range vs {
		if c.usable(v, ch, cl) {
			usable = true
			break
		}
	}
	return usable
}

// hostHolds reports whether a host (its vnodes vs, in order) can take one
// copy of ch now, whole on one vnode or, when the class allows, split.
func (c *cycle) hostHolds(vs []int, ch *chunkReq, cl *class) bool {
	for _, v := range vs {
		if c.holds(v, ch, cl) {
			return true
		}
	}
	return cl.split && len(vs) > 1 && c.hostCanSplit(vs, ch, cl)
}

// placeOnHost places one copy of ch on a host: on its first vnode that holds
// the whole copy, else (pack/scatter on a multi-vnode host) split across its
// vnodes in order, each giving what it has free.
func (c *cycle) placeOnHost(vs []int, ch *chunkReq, cl *class) (model.ExecChunk, bool) {
	for _, v := range vs {
		if c.holds(v, ch, cl) {
			return c.takeWhole(v, ch), true
		}
	}
	if !cl.split || len(vs) < 2 || !c.hostCanSplit(vs, ch, cl) {
		return model.ExecChunk{}, false
	}
	st := c.st
	left := make([]float64, len(ch.need))
	for i, n := range ch.need {
		left[i] = n.amt
	}
	ec := model.ExecChunk{MPIProcs: ch.mpiprocs}
	for _, v := range vs {
		if !c.usable(v, ch, cl) {
			continue
		}
		var amounts map[string]float64
		for i, n := range ch.need {
			a := min(max(0, c.free(v, n.r)), left[i])
			if a <= 0 {
				continue
			}
			if amounts == nil {
				amounts = make(map[string]float64, len(ch.need))
			}
			amounts[st.names[n.r]] = a
			st.take(v, n.r, a)
			left[i] -= a
		}
		if amounts == nil {
			continue
		}
		vn := st.vnodes[v]
		ec.Shares = append(ec.Shares, model.VnodeShare{Vnode: vn.Name, Host: vn.Host, Amounts: amounts})
		c.touched = append(c.touched, v)
		done := true
		for _, l := range left {
			if l > 0 {
				done = false
			}
		}
		if done {
			break
		}
	}
	return ec, true
}

// placeFree puts each copy on the first vnode (in node order) that holds it;
// a vnode may take several copies. With static node order the scan resumes
// where the previous copy went: vnodes skipped cannot hold a copy, and
// placing only shrinks free resources.
func (c *cycle) placeFree(cl *class, ord []int, vscatter bool) bool {
	o, a := c.order, &c.att
	for _, ci := range ord {
		ch := &cl.chunks[ci]
		if ch.cands != nil {
			// Pinned (host= or vnode=): look at the few vnodes allowed
			// instead of scanning the whole order (see placeCands); it
			// chooses what the scan would.
			if !c.placeCands(cl, ci, vscatter) {
				return false
			}
			continue
		}
		p := c.startVnode(ch)
		for k := 0; k < ch.count; k++ {
			found := false
			for ; p < len(o.seq); p++ {
				v := o.seq[p]
				if vscatter && a.vstamp[v] == a.cur {
					continue
				}
				if !c.holds(v, ch, cl) {
					continue
				}
				a.out[ci] = append(a.out[ci], c.takeWhole(v, ch))
				a.vstamp[v] = a.cur
				found = true
				if o.dynamic {
					// Assigned/unused keys: the vnode moved; start again
					// from the (new) best vnode, as OpenPBS's per-chunk
					// re-sort does.
					o.update(v)
					p = 0
				}
				break
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// placeScatter puts each copy on a different host, the first in host order
// that holds it (split across the host's vnodes when needed).
func (c *cycle) placeScatter(cl *class, ord []int) bool {
	hosts, hv := c.order.hosts()
	a := &c.att
	for _, ci := range ord {
		ch := &cl.chunks[ci]
		hp := c.startHost(ch)
		for k := 0; k < ch.count; k++ {
			found := false
			for ; hp < len(hosts); hp++ {
				h := hosts[hp]
				if a.hstamp[h] == a.cur {
					continue
				}
				ec, ok := c.placeOnHost(hv[h], ch, cl)
				if !ok {
					continue
				}
				a.out[ci] = append(a.out[ci], ec)
				a.hstamp[h] = a.cur
				found = true
				break
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// placePack puts the whole job on the first host (in host order) that holds
// all of its chunks.
func (c *cycle) placePack(cl *class, ord []int) bool {
	hosts, hv := c.order.hosts()
	a := &c.att
	hp := 0
	if !c.order.dynamic && !c.win.on && !c.ranked && c.pmask == nil {
		for cl.hostCursor < len(hosts) && !c.hostCouldPack(hv[hosts[cl.hostCursor]], cl) {
			cl.hostCursor++
		}
		hp = cl.hostCursor
	} else if !c.order.dynamic && !c.win.future && !c.ranked && c.pmask == nil {
		hp = cl.hostCursor // a window only narrows what fits now
	}
	for ; hp < len(hosts); hp++ {
		h := hosts[hp]
		if !c.hostCouldPack(hv[h], cl) {
			continue
		}
		m, t := c.st.mark(), len(c.touched)
		ok := true
		for _, ci := range ord {
			ch := &cl.chunks[ci]
			for k := 0; k < ch.count && ok; k++ {
				var ec model.ExecChunk
				ec, ok = c.placeOnHost(hv[h], ch, cl)
				if ok {
					a.out[ci] = append(a.out[ci], ec)
				}
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
		c.st.rollback(m)
		c.touched = c.touched[:t]
		for i := range a.out {
			a.out[i] = a.out[i][:0]
		}
	}
	return false
}

// hostCouldPack is a cheap necessary condition for a host to take a whole
// job: enough free of every resource over its usable vnodes, and room for
// each chunk shape.
func (c *cycle) hostCouldPack(vs []int, cl *class) bool {
	st := c.st
	for r, need := range cl.need {
		if need == 0 {
			continue
		}
		var sum float64
		for _, v := range vs {
			if st.eligible[v] && !c.held(v) && (!cl.excl || !c.used(v)) {
				sum += max(0, c.free(v, r))
			}
		}
		if sum < need {
			return false
		}
	}
	for i := range cl.chunks {
		if !c.hostHolds(vs, &cl.chunks[i], cl) {
			return false
		}
	}
	return true
}

// startVnode advances the chunk shape's cursor past vnodes that cannot hold
// a copy and returns where a scan should begin. Called before anything of
// the current attempt is placed, so "cannot" is about committed state only.
func (c *cycle) startVnode(ch *chunkReq) int {
	if c.order.dynamic || c.win.future || c.ranked || c.pmask != nil {
		return 0
	}
	return ch.cur.vnode
}

func (c *cycle) startHost(ch *chunkReq) int {
	if c.order.dynamic || c.win.future || c.ranked || c.pmask != nil {
		return 0
	}
	return ch.cur.host
}

// advanceCursors moves every chunk's cursors past vnodes and hosts that
// cannot hold one copy with committed state. It runs at the start of an
// attempt, before any tentative placement.
func (c *cycle) advanceCursors(cl *class) {
	if c.order.dynamic {
		return
	}
	seq := c.order.seq
	scatter := cl.arrangement == model.PlaceScatter
	var hosts []int
	var hv [][]int
	if scatter {
		hosts, hv = c.order.hosts()
	}
	for i := range cl.chunks {
		ch := &cl.chunks[i]
		// A pinned chunk is placed from its candidates (placeCands), not
		// from the cursor: advancing it would scan the whole order once
		// per pinned class.
		for ch.cands == nil && ch.cur.vnode < len(seq) && !c.holds(seq[ch.cur.vnode], ch, cl) {
			ch.cur.vnode++
		}
		if scatter {
			for ch.cur.host < len(hosts) && !c.hostHolds(hv[hosts[ch.cur.host]], ch, cl) {
				ch.cur.host++
			}
		}
	}
}
