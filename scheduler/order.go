package scheduler

import (
	"slices"
	"sort"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// vnodeOrder is the vnode list sorted by node_sort_key, ties in server order.
// Key values are cached per vnode. With static keys (sort_priority, totals)
// the order is computed once per cycle. With assigned/unused keys only the
// vnodes whose overlay changed are moved (remove + binary-search insert),
// instead of OpenPBS's full re-sort after every chunk.
type vnodeOrder struct {
	st      *state
	keys    []policy.NodeSortKey
	dynamic bool
	nk      int
	vals    []float64 // [v*nk+k]
	seq     []int     // position -> vnode
	pos     []int     // vnode -> position
	version int       // bumped whenever seq changes

	// host order: hosts by the position of their best vnode, and each
	// host's vnodes in order; recomputed lazily when version moves.
	hostVersion int
	hostSeq     []int
	hostVnodes  [][]int
}

func newVnodeOrder(st *state, keys []policy.NodeSortKey) *vnodeOrder {
	n := len(st.vnodes)
	o := &vnodeOrder{st: st, keys: keys, dynamic: policy.AnyDynamic(keys), nk: len(keys)}
	o.vals = make([]float64, n*o.nk)
	o.seq = make([]int, n)
	o.pos = make([]int, n)
	for i := range st.vnodes {
		o.computeVals(i)
		o.seq[i] = i
	}
	if o.nk > 0 {
		slices.SortFunc(o.seq, o.compare)
	}
	for p, v := range o.seq {
		o.pos[v] = p
	}
	o.hostVersion = -1
	return o
}

func (o *vnodeOrder) computeVals(v int) {
	vn := o.st.vnodes[v]
	policy.Values(o.vals[v*o.nk:(v+1)*o.nk], o.keys, vn, func(_ *model.Vnode, res string) float64 {
		return o.st.assigned(vn, v, res)
	})
}

// compare is a total order: keys, then server order.
func (o *vnodeOrder) compare(a, b int) int {
	if c := policy.CompareValues(o.keys, o.vals[a*o.nk:(a+1)*o.nk], o.vals[b*o.nk:(b+1)*o.nk]); c != 0 {
		return c
	}
	return a - b
}

// update re-reads v's key values after its overlay changed and moves it to
// its place. It is a no-op for static keys.
func (o *vnodeOrder) update(v int) {
	if !o.dynamic {
		return
	}
	o.computeVals(v)
	p := o.pos[v]
	seq := slices.Delete(o.seq, p, p+1)
	q := sort.Search(len(seq), func(i int) bool { return o.compare(seq[i], v) > 0 })
	o.seq = slices.Insert(seq, q, v)
	lo, hi := min(p, q), max(p, q)
	for i := lo; i <= hi; i++ {
		o.pos[o.seq[i]] = i
	}
	if p != q {
		o.version++
	}
}

// hosts returns hosts in order of their best vnode and each host's vnodes
// in order.
func (o *vnodeOrder) hosts() ([]int, [][]int) {
	if o.hostVersion == o.version {
		return o.hostSeq, o.hostVnodes
	}
	st := o.st
	if o.hostVnodes == nil {
		o.hostVnodes = make([][]int, len(st.hosts))
		for h, vs := range st.hosts {
			o.hostVnodes[h] = make([]int, 0, len(vs))
		}
	}
	// Only the hosts listed last time have vnodes to clear: the order may
	// be narrowed to one placement set (psets.go), and clearing every
	// host each time made that cost hosts x sets.
	for _, h := range o.hostSeq {
		o.hostVnodes[h] = o.hostVnodes[h][:0]
	}
	o.hostSeq = o.hostSeq[:0]
	for _, v := range o.seq {
		h := st.hostOf[v]
		if len(o.hostVnodes[h]) == 0 {
			o.hostSeq = append(o.hostSeq, h)
		}
		o.hostVnodes[h] = append(o.hostVnodes[h], v)
	}
	o.hostVersion = o.version
	return o.hostSeq, o.hostVnodes
}
