package policy

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// JobOrder is the job ordering policy of one cycle.
type JobOrder struct {
	// ByQueue walks queues in descending priority before any job key
	// (sched_config by_queue).
	ByQueue bool
	// QueuePriority maps queue names to their priority; missing queues are 0.
	QueuePriority map[string]int
}

// JobKey is everything the job comparator reads, computed once per job so
// sorting does no map lookups. New ordering rules (job_sort_key,
// job_sort_formula, fairshare) add fields here and a step in CompareJobKeys.
type JobKey struct {
	QueuePriority int
	Queue         string
	Priority      int
	Seq           int64
	Qtime         int64
	Index         int64 // array subjob index, -1 when not a subjob
	ID            string
}

// Key computes j's sort key under o.
func (o JobOrder) Key(j *model.Job) JobKey {
	k := JobKey{Queue: j.Queue, Priority: j.Priority, Seq: j.Seq, Qtime: j.Qtime, Index: subjobIndex(j.ID), ID: j.ID}
	if o.ByQueue {
		k.QueuePriority = o.QueuePriority[j.Queue]
	}
	return k
}

// CompareJobKeys orders jobs: with by_queue, higher queue priority first and
// queues of equal priority grouped by name (OpenPBS leaves that order to an
// unstable sort; a name keeps it deterministic); then higher job Priority;
// then submission order (sequence number, queue time, subjob index); the id
// last so the order is total.
func (o JobOrder) CompareJobKeys(a, b JobKey) int {
	if o.ByQueue {
		if c := cmp.Compare(b.QueuePriority, a.QueuePriority); c != 0 {
			return c
		}
		if c := strings.Compare(a.Queue, b.Queue); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
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

// Less reports whether a runs before b.
func (o JobOrder) Less(a, b *model.Job) bool {
	return o.CompareJobKeys(o.Key(a), o.Key(b)) < 0
}

// SortJobs returns the jobs in the order the scheduler considers them. The
// input slice (shared snapshot state) is not reordered.
func (o JobOrder) SortJobs(jobs []*model.Job) []*model.Job {
	type entry struct {
		key JobKey
		job *model.Job
	}
	entries := make([]entry, len(jobs))
	for i, j := range jobs {
		entries[i] = entry{o.Key(j), j}
	}
	slices.SortFunc(entries, func(a, b entry) int { return o.CompareJobKeys(a.key, b.key) })
	out := make([]*model.Job, len(jobs))
	for i, e := range entries {
		out[i] = e.job
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
