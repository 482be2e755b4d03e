package scheduler

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// JobOrder is the one job ordering of a snapshot: by_queue, round_robin,
// job_sort_formula, job_sort_key, then priority and submission (see
// policy.JobOrder). Schedule ranks its candidates with it, and the server
// admits candidates under max_run limits in the same order, so a limit
// keeps exactly the jobs the cycle would have picked.
func JobOrder(s *Snapshot) policy.JobOrder {
	defs := s.Defs
	if defs == nil {
		defs = model.BuiltinResources()
	}
	return policy.JobOrder{
		ByQueue:       s.Config.ByQueue,
		RoundRobin:    s.Config.RoundRobin,
		QueuePriority: queuePriorities(s.Queues),
		SortKeys:      s.Config.JobSortKeys,
		Formula:       s.Config.JobSortFormula,
		Defs:          defs,
		Now:           s.Now,
		Fairshare:     s.Config.Fairshare,
	}
}

func queuePriorities(qs map[string]Queue) map[string]int {
	out := make(map[string]int, len(qs))
	for name, q := range qs {
		out[name] = q.Priority
	}
	return out
}
