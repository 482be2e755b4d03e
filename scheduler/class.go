package scheduler

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// class is an equivalence class: jobs with the same select, place and queue
// need the same resources in the same way, so within one cycle they share
// one compiled request and, once one of them fails, one verdict. Resources
// only ever shrink during a cycle, so a failure stays a failure.
type class struct {
	key         string
	chunks      []chunkReq
	arrangement string
	excl        bool      // place=excl or exclhost: vnodes held exclusively
	exclhost    bool      // whole hosts
	split       bool      // a chunk may be split across vnodes of one host
	need        []float64 // per column: the job's total request
	orders      [][]int   // chunk orders to try: select order, then largest first

	// hostCursor (pack): hosts before it cannot take the whole job now.
	hostCursor int

	failed   bool
	comment  string
	neverRun bool
	// waitComment is set when lookahead_provision chose to wait for
	// vnodes on the class's AOE this cycle (aoe_lookahead.go).
	waitComment string
	waitOnAOE   bool // ... and plans its start on the AOE's vnodes only
	// conflictEnd is the shortest walltime (window length from now) seen
	// to conflict with a future hold this cycle; 0 when none. Holds only
	// accumulate during a cycle, so longer jobs of the class conflict too.
	conflictEnd int64
	// tryFail maps a future start time t to the shortest window [t, u)
	// in which a placement of this class failed this cycle (estimate).
	// Free amounts over any window only shrink during a cycle, so a
	// longer window from the same start fails too and is not tried.
	tryFail map[int64]int64
}

// chunkReq is one chunk of a select, compiled against the cycle's columns.
type chunkReq struct {
	count      int
	need       []resAmt // consumables asked for, per copy
	missing    string   // a consumable the cycle does not know; nothing can hold it
	missingAmt float64
	matchers   []matcher
	// constrained is set when the chunk has non-consumable constraints;
	// allows tells which vnodes meet them.
	constrained bool
	// allowed is the non-consumable match per vnode, for a constrained
	// chunk that names no host or vnode; nil otherwise.
	allowed []bool
	// cands lists the only vnodes allowed when the chunk names a host or
	// vnode (found by index, so pinned jobs cost no full scan, and no
	// per-vnode table: a queue of jobs pinned to many hosts would cost
	// classes x vnodes); nil otherwise.
	cands    []int
	mpiprocs int
	// cur is shared by every class with the same chunk text and sharing,
	// since "cannot hold one copy" depends on nothing else.
	cur *cursor
}

// allows reports whether v meets the chunk's non-consumable constraints.
func (ch *chunkReq) allows(v int) bool {
	switch {
	case ch.allowed != nil:
		return ch.allowed[v]
	case ch.cands != nil:
		for _, w := range ch.cands {
			if w == v {
				return true
			}
		}
		return false
	}
	return true
}

type resAmt struct {
	r   int
	amt float64
}

// cursor remembers, for one chunk shape, the first vnode position (and host
// position) that might still hold a copy. Everything before it was seen
// unable to, and nothing frees up during a cycle, so later jobs skip it.
// Only valid while the vnode order is static.
type cursor struct {
	vnode int
	host  int
}

// classKey identifies a job's equivalence class: the normalized select, the
// place and the queue.
func classKey(j *model.Job) string { return string(appendClassKey(nil, j)) }

// appendClassKey writes the class key into b; the hot path reuses one
// buffer so that looking up a known class allocates nothing.
func appendClassKey(b []byte, j *model.Job) []byte {
	for i, ch := range j.Select {
		if i > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(ch.Count), 10)
		for _, r := range ch.Res {
			b = append(b, ':')
			b = append(b, r.Name...)
			b = append(b, '=')
			b = append(b, r.Value...)
		}
	}
	b = append(b, '|')
	b = append(b, j.Place.Arrangement...)
	b = append(b, ':')
	b = append(b, j.Place.Sharing...)
	b = append(b, ':')
	b = append(b, j.Place.Group...)
	b = append(b, '|')
	return append(b, j.Queue...)
}

// compileClass turns a job's request into a class.
func (c *cycle) compileClass(key string, j *model.Job) *class {
	st := c.st
	cl := &class{key: key, arrangement: j.Place.ArrangementOrFree(), need: make([]float64, st.nres)}
	switch j.Place.Sharing {
	case model.SharingExcl:
		cl.excl = true
	case model.SharingExclHost:
		cl.excl, cl.exclhost = true, true
	}
	cl.split = st.multi && (cl.arrangement == model.PlacePack || cl.arrangement == model.PlaceScatter)
	sel := j.Select
	if len(sel) == 0 {
		// The server always sets schedselect; an empty one asks for a
		// single chunk of nothing rather than being unrunnable.
		sel = model.Select{{Count: 1}}
	}
	for _, ch := range sel {
		cr := chunkReq{count: ch.Count, mpiprocs: 1}
		for _, name := range model.SortedKeys(ch.Consume) {
			amt := ch.Consume[name]
			r, ok := st.col[name]
			if !ok {
				if amt > 0 && cr.missing == "" {
					cr.missing, cr.missingAmt = name, amt
				}
				continue
			}
			cr.need = append(cr.need, resAmt{r, amt})
			cl.need[r] += amt * float64(ch.Count)
		}
		if s, ok := ch.Match["mpiprocs"]; ok {
			if n, err := strconv.Atoi(s); err == nil {
				cr.mpiprocs = n
			}
		}
		cr.matchers = compileMatchers(ch, c.defs)
		if len(cr.matchers) > 0 {
			cr.constrained = true
			cr.cands = c.pinned(cr.matchers)
			if cr.cands != nil {
				kept := []int{}
				for _, v := range cr.cands {
					if matchAll(cr.matchers, st.vnodes[v]) {
						kept = append(kept, v)
					}
				}
				cr.cands = kept
			} else {
				cr.allowed = make([]bool, len(st.vnodes))
				for v, vn := range st.vnodes {
					cr.allowed[v] = matchAll(cr.matchers, vn)
				}
			}
		}
		cr.cur = c.cursorFor(ch, j.Place.Sharing)
		cl.chunks = append(cl.chunks, cr)
	}
	cl.orders = chunkOrders(cl.chunks, st)
	c.classPsets(cl, j) // placement sets hook point (psets.go)
	return cl
}

// pinned returns the vnodes a host= or vnode= constraint allows, from the
// name indexes, or nil when the chunk names neither.
func (c *cycle) pinned(ms []matcher) []int {
	for _, m := range ms {
		switch m.kind {
		case matchVnode:
			if v, ok := c.st.index[m.value]; ok {
				return []int{v}
			}
			return []int{}
		case matchHost:
			if vs := c.st.byHost[m.value]; vs != nil {
				return vs
			}
			return []int{}
		}
	}
	return nil
}

// cursorFor returns the shared cursor of a chunk shape.
func (c *cycle) cursorFor(ch model.Chunk, sharing string) *cursor {
	ch.Count = 1
	k := ch.String() + "|" + sharing
	cu, ok := c.cursors[k]
	if !ok {
		cu = &cursor{}
		c.cursors[k] = cu
	}
	return cu
}

// chunkOrders returns the select order and, when different, the order with
// larger chunks first. First fit in select order is what PBS users expect;
// the second order rescues requests such as 1:ncpus=2+1:ncpus=4 on vnodes
// of 4 and 2 cpus that OpenPBS's single pass misses.
func chunkOrders(chunks []chunkReq, st *state) [][]int {
	plain := make([]int, len(chunks))
	for i := range plain {
		plain[i] = i
	}
	if len(chunks) < 2 {
		return [][]int{plain}
	}
	big := slices.Clone(plain)
	slices.SortStableFunc(big, func(a, b int) int { return compareSize(chunks[b], chunks[a], st) })
	if slices.Equal(big, plain) {
		return [][]int{plain}
	}
	return [][]int{plain, big}
}

// compareSize orders chunks by ncpus, then mem, then the other consumables
// by column.
func compareSize(a, b chunkReq, st *state) int {
	amount := func(c chunkReq, r int) float64 {
		for _, ra := range c.need {
			if ra.r == r {
				return ra.amt
			}
		}
		return 0
	}
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
	for _, r := range cols {
		if c := cmp.Compare(amount(a, r), amount(b, r)); c != 0 {
			return c
		}
	}
	return 0
}

// shortHost is the host name up to the first dot.
func shortHost(h string) string {
	if d := strings.IndexByte(h, '.'); d >= 0 {
		return h[:d]
	}
	return h
}
