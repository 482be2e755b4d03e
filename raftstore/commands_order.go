package raftstore

import "github.com/strata-hpc/strata/model"

// OrderJobs is qorder: the two jobs exchange their places in submission
// order (their Rank), which job ordering uses after priority and sort keys.
type OrderJobs struct {
	JobID     string `json:"job_id"`
	Other     string `json:"other"`
	Requestor string `json:"requestor"`
	Now       int64  `json:"now"`
}

func (OrderJobs) Type() MessageType { return OrderJobsType }

// orderJobs swaps two jobs' ranks. Neither may have started: a running
// job's place in the queue no longer means anything (PBS refuses too).
func (w *writer) orderJobs(c *OrderJobs) any {
	a, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	b, err := w.liveJob(c.Other)
	if err != nil {
		return err
	}
	if a.IsRunning() || b.IsRunning() || a.IsSubjob() || b.IsSubjob() {
		return model.Err(model.PBSEBadState)
	}
	ra, rb := a.OrderRank(), b.OrderRank()
	a, b = a.Copy(), b.Copy()
	a.Rank, b.Rank = &rb, &ra
	a.Mtime, b.Mtime = c.Now, c.Now
	w.note(a, c.Now, "Job order swapped with %s at request of %s", b.ID, c.Requestor)
	w.note(b, c.Now, "Job order swapped with %s at request of %s", a.ID, c.Requestor)
	w.putJob(a)
	w.putJob(b)
	return nil
}
