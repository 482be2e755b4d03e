package policy

import (
	"cmp"
	"container/heap"
	"math"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// interleave reorders a ranked queue so that each entity's jobs are
// charged as they are taken. OpenPBS charges a job's expected usage to its
// entity when the job starts in a cycle and re-sorts, so one entity cannot
// take every node freed in a cycle. Strata ranks the queue once, so it
// charges while ranking instead: repeatedly take the next job of the most
// deserving entity (compare_path over the usage so far), then add that
// job's expected usage (ExpectedUsage) to the entity and its groups. A job
// that does not start still moves its entity's later jobs back; that is
// the price of ranking once, and what keeps two entities with equal usage
// alternating instead of the first by name taking everything.
//
// Higher keys are kept: only runs of jobs with equal queue (with
// by_queue) and equal formula value are interleaved, and an entity's jobs
// keep their relative order (job_sort_key, submission).
func (o JobOrder) interleave(entries []rankEntry) {
	f := o.Fairshare
	for lo := 0; lo < len(entries); {
		hi := lo + 1
		for hi < len(entries) && o.sameSegment(entries[lo].key, entries[hi].key) {
			hi++
		}
		if hi-lo > 1 {
			f.interleaveSegment(entries[lo:hi], o)
		}
		lo = hi
	}
}

func (o JobOrder) sameSegment(a, b JobKey) bool {
	if o.ByQueue && !o.RoundRobin && (a.QueuePriority != b.QueuePriority || a.Queue != b.Queue) {
		return false
	}
	return a.Formula == b.Formula
}

type rankEntry struct {
	key JobKey
	job *model.Job
}

// ExpectedUsage is what a job will be charged if it runs to its walltime,
// in fairshare_usage_res units: walltime x ncpus for cput (a cpu's worth
// of cput per second), walltime for walltime, walltime x Resource_List.R
// for a consumable R. At least 1, so that equal entities alternate even
// when jobs have no walltime.
func (o JobOrder) ExpectedUsage(j *model.Job) float64 {
	res := o.Fairshare.res
	wall := JobAmount(j, "walltime", o.Defs)
	var v float64
	switch res {
	case "walltime":
		v = wall
	case "cput":
		v = wall * JobAmount(j, "ncpus", o.Defs)
	default:
		v = wall * JobAmount(j, res, o.Defs)
	}
	if !(v >= 1) || math.IsInf(v, 0) {
		return 1
	}
	return v
}

// ilState is the dynamic tree of one segment: per node, the usage charged
// so far, the jobs waiting (own, in order) and a heap of the children that
// have jobs waiting below them, most deserving first.
type ilState struct {
	f       *Fairshare
	usage   []float64
	jobs    [][]int // per node: entry indexes of its own jobs, in order
	next    []int   // per node: first job of jobs not taken
	pending []int   // per node: jobs waiting in its subtree
	kids    []childHeap
	pos     []int // per node: index in its parent's heap, -1 when absent
}

func (f *Fairshare) interleaveSegment(seg []rankEntry, o JobOrder) {
	n := len(f.nodes)
	s := &ilState{f: f, usage: make([]float64, n), jobs: make([][]int, n), next: make([]int, n),
		pending: make([]int, n), kids: make([]childHeap, n), pos: make([]int, n)}
	for i := range f.nodes {
		s.usage[i] = f.nodes[i].usage
		s.pos[i] = -1
		s.kids[i].s = s
	}
	var stray []int // entities the tree was not built with: last, in order
	for i, e := range seg {
		node, ok := f.index[f.EntityOf(e.job)]
		if !ok {
			stray = append(stray, i)
			continue
		}
		s.jobs[node] = append(s.jobs[node], i)
		for m := node; m >= 0; m = f.nodes[m].parent {
			s.pending[m]++
		}
	}
	for i := 1; i < n; i++ {
		if s.pending[i] > 0 {
			p := f.nodes[i].parent
			s.pos[i] = len(s.kids[p].nodes)
			s.kids[p].nodes = append(s.kids[p].nodes, i)
		}
	}
	for i := range s.kids {
		heap.Init(&s.kids[i])
	}
	out := make([]rankEntry, 0, len(seg))
	for s.pending[0] > 0 {
		node := 0
		// Own jobs of a group that is also an entity go before its
		// children's (rare: egroup entities named like tree groups).
		for s.next[node] >= len(s.jobs[node]) {
			node = s.kids[node].nodes[0]
		}
		idx := s.jobs[node][s.next[node]]
		s.next[node]++
		out = append(out, seg[idx])
		charge := o.ExpectedUsage(seg[idx].job)
		for m := node; m >= 0; m = f.nodes[m].parent {
			s.usage[m] += charge
			s.pending[m]--
		}
		for m := node; m > 0; m = f.nodes[m].parent {
			p := &s.kids[f.nodes[m].parent]
			if s.pending[m] == 0 {
				heap.Remove(p, s.pos[m])
			} else {
				heap.Fix(p, s.pos[m])
			}
		}
	}
	for _, i := range stray {
		out = append(out, seg[i])
	}
	copy(seg, out)
}

// childHeap orders siblings by usage per share of the machine (+Inf
// without shares), then name.
type childHeap struct {
	s     *ilState
	nodes []int
}

func (h childHeap) Len() int { return len(h.nodes) }
func (h childHeap) Less(a, b int) bool {
	x, y := h.nodes[a], h.nodes[b]
	if c := cmp.Compare(h.s.ratio(x), h.s.ratio(y)); c != 0 {
		return c < 0
	}
	return strings.Compare(h.s.f.nodes[x].name, h.s.f.nodes[y].name) < 0
}
func (h childHeap) Swap(a, b int) {
	h.nodes[a], h.nodes[b] = h.nodes[b], h.nodes[a]
	h.s.pos[h.nodes[a]], h.s.pos[h.nodes[b]] = a, b
}
func (h *childHeap) Push(x any) {
	n := x.(int)
	h.s.pos[n] = len(h.nodes)
	h.nodes = append(h.nodes, n)
}
func (h *childHeap) Pop() any {
	n := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	h.s.pos[n] = -1
	return n
}

func (s *ilState) ratio(i int) float64 {
	p := s.f.nodes[i].perc
	if p <= 0 {
		return math.Inf(1)
	}
	return s.usage[i] / p
}
