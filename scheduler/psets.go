package scheduler

import (
	"cmp"
	"slices"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Placement sets (docs/scheduling.md, "Placement sets"), as OpenPBS's
// node_partition: the values of the vnode resources named by
// node_group_key (the job's queue's, else the server's, when
// node_group_enable is on) or by the job's place=group=<res> partition the
// vnodes; one set per value (a string_array vnode is in the set of each of
// its values), and the vnodes without a value form one more set unless
// only_explicit_psets. A job is placed inside one set: the smallest that
// fits (ascending total ncpus, total mem, free ncpus, free mem), and for a
// job with an AOE, sets whose vnodes already run the AOE first. A job that
// fits no set even when all its vnodes are free spans all vnodes, or with
// do_not_span_psets can never run. A job that fits some set, but none now,
// waits: it never spans.

// PsetConfig is the placement-set policy.
type PsetConfig struct {
	Enable       bool     // node_group_enable
	Keys         []string // node_group_key of the server
	DoNotSpan    bool     // do_not_span_psets
	OnlyExplicit bool     // only_explicit_psets
}

// msgCantSpan is OpenPBS's CANT_SPAN_PSET comment.
const msgCantSpan = "can't fit in the largest placement set, and can't span psets"

// pset is one placement set of the cycle. Membership is marked in the
// cycle's one mask while the set is tried, not kept per set: a key with a
// value per host (place=group=host, which any user may ask for) would
// otherwise cost sets x vnodes.
type pset struct {
	name   string    // "switch=s1"
	vnodes []int     // in server order, each once
	hosts  int       // distinct hosts
	total  []float64 // per column: capacity summed over the set
	// free is what the set's vnodes have free now, per column, while
	// freeOK (refreshFree clears it when a job starts on the set: nothing
	// else changes the overlay during the job pass).
	free   []float64
	freeOK bool
	sub    []int // the set's vnodes in node order (static sort keys)
}

// setFree is what p's usable vnodes have free over the placement window:
// cached for "now" until the next job starts, computed afresh for a
// window with holds or in the future.
func (c *cycle) setFree(p *pset) []float64 {
	st := c.st
	if !c.win.on && p.freeOK {
		return p.free
	}
	if p.free == nil {
		p.free = make([]float64, st.nres)
	}
	free := p.free
	clear(free)
	for _, v := range p.vnodes {
		if !st.eligible[v] || c.held(v) {
			continue
		}
		if c.win.on {
			for r := range free {
				free[r] += max(0, c.free(v, r))
			}
			continue
		}
		row := v * st.nres
		for r := range free {
			if f := st.avail0[row+r] - st.placed[row+r]; f > 0 {
				free[r] += f
			}
		}
	}
	p.freeOK = !c.win.on
	return free
}

// copies is the number of chunk copies of the class.
func (cl *class) copies() int {
	n := 0
	for i := range cl.chunks {
		n += cl.chunks[i].count
	}
	return n
}

// psetsOf returns the placement sets that apply to a job (nil: none),
// built once per cycle for each list of keys.
func (c *cycle) psetsOf(j *model.Job) []*pset {
	var keys []string
	cfg := &c.snap.Config.Psets
	switch {
	case j.Place.Group != "":
		keys = []string{j.Place.Group}
	case !cfg.Enable:
		return nil
	case len(c.snap.Queues[j.Queue].NodeGroupKey) > 0:
		keys = c.snap.Queues[j.Queue].NodeGroupKey
	default:
		keys = cfg.Keys
	}
	if len(keys) == 0 {
		return nil
	}
	k := strings.Join(keys, ",")
	if ix, ok := c.psetCache[k]; ok {
		return ix.sets
	}
	if c.psetCache == nil {
		c.psetCache = map[string]*psetIndex{}
	}
	ix := newPsetIndex(c.st, buildPsets(c.st, keys, cfg.OnlyExplicit))
	c.psetCache[k] = ix
	c.psetIdx = append(c.psetIdx, ix)
	return ix.sets
}

// psetIndex is one list of sets with, per vnode, the sets it is in (CSR:
// of[start[v]:start[v+1]]), so that a job started in the cycle marks only
// the sets whose free amounts it changed.
type psetIndex struct {
	sets  []*pset
	start []int32
	of    []int32
	seen  int // run decisions already accounted for
}

func newPsetIndex(st *state, sets []*pset) *psetIndex {
	ix := &psetIndex{sets: sets, start: make([]int32, len(st.vnodes)+1)}
	for _, p := range sets {
		for _, v := range p.vnodes {
			ix.start[v+1]++
		}
	}
	for v := range st.vnodes {
		ix.start[v+1] += ix.start[v]
	}
	ix.of = make([]int32, ix.start[len(st.vnodes)])
	next := slices.Clone(ix.start[:len(st.vnodes)])
	for i, p := range sets {
		for _, v := range p.vnodes {
			ix.of[next[v]] = int32(i)
			next[v]++
		}
	}
	return ix
}

// refreshFree forgets the cached free amounts of the sets that the jobs
// started since the last call touch: every vnode of each host they use
// (the host of a job with an AOE is held whole while it is provisioned).
func (c *cycle) refreshFree() {
	st := c.st
	runs := c.plan.Runs
	for _, ix := range c.psetIdx {
		for _, d := range runs[ix.seen:] {
			for _, ec := range d.Exec {
				for _, sh := range ec.Shares {
					v, ok := st.index[sh.Vnode]
					if !ok {
						continue
					}
					for _, w := range st.hosts[st.hostOf[v]] {
						for _, i := range ix.of[ix.start[w]:ix.start[w+1]] {
							ix.sets[i].freeOK = false
						}
					}
				}
			}
		}
		ix.seen = len(runs)
	}
}

// buildPsets partitions the vnodes by the values of each key.
func buildPsets(st *state, keys []string, onlyExplicit bool) []*pset {
	var out []*pset
	for _, key := range keys {
		list := st.defs[key].Type == model.TypeStringArray
		byValue := map[string][]int{}
		for v, vn := range st.vnodes {
			val := strings.TrimSpace(vn.Available[key])
			if val == "" {
				if !onlyExplicit {
					byValue[""] = append(byValue[""], v)
				}
				continue
			}
			if !list {
				byValue[val] = append(byValue[val], v)
				continue
			}
			for _, item := range strings.Split(val, ",") {
				if item = strings.TrimSpace(item); item != "" {
					byValue[item] = append(byValue[item], v)
				}
			}
		}
		for _, val := range model.SortedKeys(byValue) {
			p := &pset{name: key + "=" + val, total: make([]float64, st.nres)}
			if val == "" {
				p.name = key + `=""`
			}
			seenHost := map[int]bool{}
			for _, v := range byValue[val] {
				if n := len(p.vnodes); n > 0 && p.vnodes[n-1] == v {
					continue // a value listed twice in one string_array
				}
				p.vnodes = append(p.vnodes, v)
				if !seenHost[st.hostOf[v]] {
					seenHost[st.hostOf[v]] = true
					p.hosts++
				}
				for r := range p.total {
					p.total[r] += st.capa[v*st.nres+r]
				}
			}
			out = append(out, p)
		}
	}
	return out
}

// classPsets records the sets that apply to a newly compiled class.
func (c *cycle) classPsets(cl *class, j *model.Job) {
	if sets := c.psetsOf(j); sets != nil {
		if c.psetOf == nil {
			c.psetOf = map[*class][]*pset{}
		}
		c.psetOf[cl] = sets
	}
}

// couldHold reports whether the set could take the class with all its
// vnodes free: enough capacity in total, and for each chunk a vnode that
// meets its constraints and (unless chunks may be split on a host) has
// the capacity for a copy.
func (c *cycle) couldHold(p *pset, cl *class) bool {
	st := c.st
	for r, need := range cl.need {
		if need > p.total[r] {
			return false
		}
	}
	// scatter needs a host per copy, vscatter a vnode per copy.
	switch copies := cl.copies(); cl.arrangement {
	case model.PlaceScatter:
		if p.hosts < copies {
			return false
		}
	case model.PlaceVScatter:
		if len(p.vnodes) < copies {
			return false
		}
	}
	for i := range cl.chunks {
		ch := &cl.chunks[i]
		if ch.missing != "" {
			return false
		}
		ok := false
		for _, v := range p.vnodes {
			if !ch.allows(v) {
				continue
			}
			fits := true
			for _, n := range ch.need {
				if !cl.split && st.capa[v*st.nres+n.r] < n.amt {
					fits = false
					break
				}
			}
			if fits {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// attemptPsets is attempt for a class with placement sets: inside each set
// that could hold it, smallest first, then across all vnodes if it fits no
// set and spanning is allowed.
func (c *cycle) attemptPsets(cl *class, sets []*pset) (int, bool) {
	st := c.st
	type cand struct {
		p    *pset
		tier int
		free []float64
	}
	aoe := ""
	for i := range cl.chunks {
		if aoe = chunkAOE(&cl.chunks[i]); aoe != "" {
			break
		}
	}
	ncpus, hasNcpus := st.col["ncpus"]
	mem, hasMem := st.col["mem"]
	var cands []cand
	anyFits := false
	c.refreshFree()
	fit := c.psetFit[cl]
	if fit == nil {
		// Whether a set could ever hold the class does not change in a
		// cycle: found once per class.
		fit = make([]bool, len(sets))
		for i, p := range sets {
			fit[i] = c.couldHold(p, cl)
		}
		if c.psetFit == nil {
			c.psetFit = map[*class][]bool{}
		}
		c.psetFit[cl] = fit
	}
	for i, p := range sets {
		if !fit[i] {
			continue
		}
		anyFits = true
		// What is free in the set over the window; a set without
		// enough in total is skipped at once ("Placement set X is too
		// small" in OpenPBS's log).
		free := c.setFree(p)
		var onAOE float64
		if aoe != "" && hasNcpus {
			for _, v := range p.vnodes {
				if st.vnodes[v].CurrentAOE == aoe {
					onAOE += st.capa[v*st.nres+ncpus]
				}
			}
		}
		small := false
		for r, need := range cl.need {
			if need > free[r] {
				small = true
			}
		}
		if small {
			continue
		}
		tier := 0
		if aoe != "" {
			// Provisioning: sets that already run the AOE first (all
			// of the job's cpus, then some), so fewer hosts reboot.
			switch {
			case hasNcpus && onAOE >= cl.need[ncpus] && onAOE > 0:
			case onAOE > 0:
				tier = 1
			default:
				tier = 2
			}
		}
		cands = append(cands, cand{p, tier, free})
	}
	at := func(a []float64, r int, ok bool) float64 {
		if !ok {
			return 0
		}
		return a[r]
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		return cmp.Or(
			cmp.Compare(a.tier, b.tier),
			cmp.Compare(at(a.p.total, ncpus, hasNcpus), at(b.p.total, ncpus, hasNcpus)),
			cmp.Compare(at(a.p.total, mem, hasMem), at(b.p.total, mem, hasMem)),
			cmp.Compare(at(a.free, ncpus, hasNcpus), at(b.free, ncpus, hasNcpus)),
			cmp.Compare(at(a.free, mem, hasMem), at(b.free, mem, hasMem)),
			strings.Compare(a.p.name, b.p.name))
	})
	c.psetActive = true
	defer func() { c.psetActive, c.pmask = false, nil }()
	if c.psetMask == nil {
		c.psetMask = make([]bool, len(st.vnodes))
	}
	for _, k := range cands {
		for _, v := range k.p.vnodes {
			c.psetMask[v] = true
		}
		c.pmask = c.psetMask
		// avoid_provision re-ranks the whole order itself (aoe.go): the
		// mask alone keeps such a job inside the set.
		restore := func() {}
		if aoe == "" || c.snap.Provision.Policy != AvoidProvision {
			restore = c.orderWithin(k.p)
		}
		m, ok := c.attempt(cl)
		restore()
		for _, v := range k.p.vnodes {
			c.psetMask[v] = false
		}
		if ok {
			return m, true
		}
	}
	c.pmask = nil
	if anyFits || c.snap.Config.Psets.DoNotSpan {
		return 0, false
	}
	return c.attempt(cl) // fits no set: span them (OpenPBS's default)
}

// psetNever explains a class that fits no placement set when spanning is
// off (do_not_span_psets).
func (c *cycle) psetNever(cl *class) (string, bool) {
	sets, ok := c.psetOf[cl]
	if !ok || !c.snap.Config.Psets.DoNotSpan {
		return "", false
	}
	for _, p := range sets {
		if c.couldHold(p, cl) {
			return "", false
		}
	}
	return msgCantSpan, true
}

// orderWithin narrows the vnode order to the set's vnodes (in node order),
// so that an attempt inside a set costs the set's size, not the cluster's;
// positions are the set's own, which is why cursors do not apply while a
// set is tried. It returns the function that restores the full order.
func (c *cycle) orderWithin(p *pset) func() {
	o := c.order
	seq, pos := o.seq, o.pos
	sub := p.sub
	if sub == nil || o.dynamic {
		// With static sort keys the order never changes in a cycle:
		// the set's part of it is sorted once.
		sub = slices.Clone(p.vnodes)
		slices.SortFunc(sub, func(a, b int) int { return pos[a] - pos[b] })
		if !o.dynamic {
			p.sub = sub
		}
	}
	if c.psetPos == nil {
		c.psetPos = make([]int, len(pos))
	}
	for i, v := range sub {
		c.psetPos[v] = i
	}
	o.seq, o.pos = sub, c.psetPos
	o.version++
	return func() {
		o.seq, o.pos = seq, pos
		o.version++
	}
}
