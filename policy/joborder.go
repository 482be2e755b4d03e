package policy

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// JobOrder is the job ordering policy of one cycle. The order is, first
// difference wins: queue priority (by_queue), job_sort_formula descending,
// the job_sort_key entries, job Priority when no job_sort_key is set (a
// Strata default: qsub -p means something without configuration), then
// submission order. round_robin then interleaves queues of equal priority.
type JobOrder struct {
	// ByQueue walks queues in descending priority before any job key
	// (sched_config by_queue).
	ByQueue bool
	// RoundRobin groups queues into priority levels (descending) and, within
	// a level, takes one job from each queue in turn (queues by name). It
	// takes precedence over ByQueue.
	RoundRobin bool
	// QueuePriority maps queue names to their priority; missing queues are 0.
	QueuePriority map[string]int
	// SortKeys are the job_sort_key lines; Formula is job_sort_formula.
	SortKeys []JobSortKey
	Formula  *Formula
	// Defs parse Resource_List values for keys and formula variables.
	Defs model.ResourceDefs
	// Now is the cycle's time, for the formula's eligible_time.
	Now int64
	// Fairshare is the share tree with usage (fairshare.go), nil without
	// one: it gives the formula's fairshare variables and, when its Order
	// is set (fair_share), orders jobs right after the formula.
	Fairshare *Fairshare
}

// JobKey is everything the job comparator reads, computed once per job so
// sorting does no map lookups.
type JobKey struct {
	QueuePriority int
	Queue         string
	Formula       float64
	Fairshare     int       // the entity's fairshare rank, 0 without fair_share
	Vals          []float64 // one per SortKeys entry
	Priority      int
	Seq           int64 // the order rank: Seq unless qorder swapped it
	Qtime         int64
	Index         int64 // array subjob index, -1 when not a subjob
	ID            string
}

// Key computes j's sort key under o.
func (o JobOrder) Key(j *model.Job) JobKey {
	k := JobKey{Queue: j.Queue, Priority: j.Priority, Seq: j.OrderRank(), Qtime: j.Qtime, Index: subjobIndex(j.ID), ID: j.ID}
	if o.ByQueue || o.RoundRobin {
		k.QueuePriority = o.QueuePriority[j.Queue]
	}
	if len(o.SortKeys) > 0 {
		k.Vals = make([]float64, len(o.SortKeys))
		for i, sk := range o.SortKeys {
			k.Vals[i] = o.keyValue(j, sk.Name)
		}
	}
	if o.Formula != nil {
		k.Formula = o.FormulaValue(j)
	}
	if o.Fairshare != nil && o.Fairshare.Order {
		k.Fairshare = o.Fairshare.Rank(j)
	}
	return k
}

func (o JobOrder) keyValue(j *model.Job, name string) float64 {
	switch name {
	case JobPriority:
		return float64(j.Priority)
	case VarQueuePriority:
		return float64(o.QueuePriority[j.Queue])
	case VarEligibleTime:
		return float64(EligibleTime(j, o.Now))
	case VarFairSharePerc, VarFairsharePerc, VarFairshareTreeUsage, VarFairshareFactor:
		return o.Fairshare.Value(j, name)
	}
	return JobAmount(j, name, o.Defs)
}

// FormulaValue evaluates job_sort_formula for j (0 without a formula).
// Variables: resource names (the job-wide request, 0 if not requested),
// queue_priority, job_priority, eligible_time and the fairshare variables
// (fairshare.go); anything else is 0.
func (o JobOrder) FormulaValue(j *model.Job) float64 {
	if o.Formula == nil {
		return 0
	}
	var buf [8]float64
	vals := buf[:0]
	for _, name := range o.Formula.Vars() {
		vals = append(vals, o.keyValue(j, name))
	}
	return o.Formula.Eval(vals)
}

// EligibleTime is how long j has been eligible to run: from etime (or qtime
// when etime is unset) to now.
func EligibleTime(j *model.Job, now int64) int64 {
	from := j.Etime
	if from == 0 {
		from = j.Qtime
	}
	if from == 0 || now < from {
		return 0
	}
	return now - from
}

// CompareJobKeys orders jobs: with by_queue, higher queue priority first and
// queues of equal priority grouped by name (OpenPBS leaves that order to an
// unstable sort; a name keeps it deterministic); then the formula (higher
// first); then the job_sort_keys, or job Priority when there are none; then
// submission order (sequence number, queue time, subjob index); the id last
// so the order is total.
func (o JobOrder) CompareJobKeys(a, b JobKey) int {
	if o.ByQueue && !o.RoundRobin {
		if c := cmp.Compare(b.QueuePriority, a.QueuePriority); c != 0 {
			return c
		}
		if c := strings.Compare(a.Queue, b.Queue); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(b.Formula, a.Formula); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Fairshare, b.Fairshare); c != 0 {
		return c
	}
	for i, sk := range o.SortKeys {
		if c := cmp.Compare(a.Vals[i], b.Vals[i]); c != 0 {
			if sk.High {
				return -c
			}
			return c
		}
	}
	if len(o.SortKeys) == 0 {
		if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(a.Seq, b.Seq); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Qtime, b.Qtime); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Index, b.Index); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Less reports whether a runs before b (round_robin and the fairshare
// interleaving aside, which depend on the other jobs).
func (o JobOrder) Less(a, b *model.Job) bool {
	return o.CompareJobKeys(o.Key(a), o.Key(b)) < 0
}

// Ranked is a job in cycle order with its formula value (0 without one).
type Ranked struct {
	Job     *model.Job
	Formula float64
}

// SortJobs returns the jobs in the order the scheduler considers them. The
// input slice (shared snapshot state) is not reordered.
func (o JobOrder) SortJobs(jobs []*model.Job) []*model.Job {
	r := o.Rank(jobs)
	out := make([]*model.Job, len(r))
	for i, e := range r {
		out[i] = e.Job
	}
	return out
}

// Rank is SortJobs keeping each job's formula value, which the scheduler
// compares with job_sort_formula_threshold.
func (o JobOrder) Rank(jobs []*model.Job) []Ranked {
	entries := make([]rankEntry, len(jobs))
	var vals []float64
	if n := len(o.SortKeys); n > 0 {
		vals = make([]float64, len(jobs)*n) // one allocation for every key
	}
	ko := o
	ko.SortKeys = nil
	for i, j := range jobs {
		k := ko.Key(j)
		if n := len(o.SortKeys); n > 0 {
			k.Vals = vals[i*n : (i+1)*n : (i+1)*n]
			for x, sk := range o.SortKeys {
				k.Vals[x] = o.keyValue(j, sk.Name)
			}
		}
		entries[i] = rankEntry{k, j}
	}
	slices.SortFunc(entries, func(a, b rankEntry) int { return o.CompareJobKeys(a.key, b.key) })
	if o.Fairshare != nil && o.Fairshare.Order {
		o.interleave(entries) // fairshare_interleave.go
	}
	out := make([]Ranked, len(entries))
	for i, e := range entries {
		out[i] = Ranked{Job: e.job, Formula: e.key.Formula}
	}
	if o.RoundRobin {
		out = roundRobin(out, o.QueuePriority)
	}
	return out
}

// roundRobin interleaves jobs already in global order: priority levels of
// queues in descending order; within a level, one job from each queue (by
// name) in turn until the level is empty, as OpenPBS's round_robin does.
func roundRobin(in []Ranked, prio map[string]int) []Ranked {
	byQueue := map[string][]Ranked{}
	var names []string
	for _, r := range in {
		q := r.Job.Queue
		if _, ok := byQueue[q]; !ok {
			names = append(names, q)
		}
		byQueue[q] = append(byQueue[q], r)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(prio[b], prio[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	out := make([]Ranked, 0, len(in))
	for lo := 0; lo < len(names); {
		hi := lo + 1
		for hi < len(names) && prio[names[hi]] == prio[names[lo]] {
			hi++
		}
		level := names[lo:hi]
		for left := true; left; {
			left = false
			for _, q := range level {
				if rs := byQueue[q]; len(rs) > 0 {
					out = append(out, rs[0])
					byQueue[q] = rs[1:]
					left = true
				}
			}
		}
		lo = hi
	}
	return out
}

// subjobIndex returns the number inside "123[7].svr", or -1.
func subjobIndex(id string) int64 {
	open := strings.IndexByte(id, '[')
	if open < 0 {
		return -1
	}
	end := strings.IndexByte(id[open:], ']')
	if end < 0 {
		return -1
	}
	n, err := strconv.ParseInt(id[open+1:open+end], 10, 64)
	if err != nil {
		return -1
	}
	return n
}
