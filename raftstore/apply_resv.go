package raftstore

import (
	"fmt"
	"sort"

	"github.com/strata-hpc/strata/model"
)

// Reservations in the FSM (docs/reservations.md). Everything here is
// deterministic: times come in the commands, occurrences of standing
// reservations are computed by the server before it proposes them.

// resvDeleter names the server as the requestor of what a reservation's
// end does to its jobs.
const resvDeleter = "Server@reservation"

func (w *writer) resv(id string) *model.Reservation {
	return first[model.Reservation](w.txn, tableResvs, "id", id)
}

func (w *writer) putResv(r *model.Reservation) {
	w.resvStateEvent(w.resv(r.ID), r)
	w.must(w.txn.Insert(tableResvs, r))
	w.touch(tableResvs)
}

// submitResv assigns the reservation its id from the job counter, stores
// it unconfirmed and creates its queue (enabled at confirmation, started
// at the start time).
func (w *writer) submitResv(c *SubmitResv) any {
	switch {
	case len(c.Resv.Hosts) > 0:
		return w.submitMaintResv(c) // apply_resv_maint.go
	case c.Resv.QmoveJob != "" && !c.Resv.ASAP:
		return w.submitRunningJobResv(c) // pbs_rsub --job (apply_resv_job.go)
	}
	if c.Resv.Token != "" {
		if raw, _ := w.txn.First(tableResvs, "token", c.Resv.Token); raw != nil {
			return raw.(*model.Reservation).ID
		}
	}
	m := w.meta()
	m.Config = m.Config.Copy()
	r := c.Resv.Copy()
	prefix := model.ResvPrefixAdvance
	if len(r.Occurrences) > 1 {
		prefix = model.ResvPrefixStanding
	}
	r.Seq = m.NextSeq
	r.ID = model.FormatResvID(prefix, r.Seq, m.Config.Name)
	r.Queue = model.ResvQueueName(r.ID)
	r.Server = m.Config.Name
	r.State, r.Substate = model.ResvUnconfirmed, model.ResvUnconfirmed
	r.Ctime, r.Mtime = c.Now, c.Now
	r.Gone, r.Denied, r.Nodes, r.Provisioned = 0, false, nil, false
	if len(r.Occurrences) > 0 {
		r.Index, r.Count = 1, len(r.Occurrences)
	}
	m.NextSeq++
	if max := m.Config.MaxJobSequenceID; max > 0 && m.NextSeq > max {
		m.NextSeq = 0
	}
	if m.Config.Queues == nil {
		m.Config.Queues = map[string]model.QueueConfig{}
	}
	m.Config.Queues[r.Queue] = model.QueueConfig{
		Name:          r.Queue,
		Type:          "execution",
		ACLUserEnable: true,
		ACLUsers:      append([]string(nil), r.AuthorizedUsers...),
	}
	w.putMeta(m)
	w.setResvACLs(r) // -G and -H (apply_resv_alter.go)
	w.putResv(r)
	return r.ID
}

// setResvQueue changes the enabled/started flags of a reservation's queue,
// or removes it (remove).
func (w *writer) setResvQueue(name string, enabled, started, remove bool) {
	m := w.meta()
	q, ok := m.Config.Queues[name]
	if !ok {
		return
	}
	if !remove && q.Enabled == enabled && q.Started == started {
		return
	}
	m.Config = m.Config.Copy()
	if remove {
		delete(m.Config.Queues, name)
	} else {
		q = q.Copy()
		q.Enabled, q.Started = enabled, started
		m.Config.Queues[name] = q
	}
	w.putMeta(m)
}

// resvDecisions applies the scheduler's verdicts. A denied reservation
// becomes a tombstone (pbs_rsub -I learns DENIED and the reason) and its
// queue goes away.
func (w *writer) resvDecisions(ds []model.ResvDecision, now int64) {
	for _, d := range ds {
		if d.Reconfirm {
			w.resvReconfirm(d, now)
			continue
		}
		r := w.resv(d.ID)
		if r != nil && r.Gone == 0 && r.State == model.ResvBeingAltered {
			w.alterDecision(r, d, now) // pbs_ralter (apply_resv_alter.go)
			continue
		}
		if r == nil || r.Gone != 0 || r.State != model.ResvUnconfirmed {
			continue
		}
		r = r.Copy()
		r.Mtime = now
		if !d.Confirm {
			r.Gone, r.Denied = now, true
			r.State, r.Substate = model.ResvDeleted, model.ResvDeleted
			r.Comment = "Reservation denied: " + d.Reason
			w.setResvQueue(r.Queue, false, false, true)
			w.putResv(r)
			continue
		}
		r.Nodes = d.Nodes
		r.State, r.Substate = model.ResvConfirmed, model.ResvConfirmed
		r.Comment = fmt.Sprintf("Reservation confirmed at %s", pbsTime(now))
		w.setResvQueue(r.Queue, true, false, false)
		w.confirmJobResv(r, d, now)
		w.putResv(r)
	}
}

// resvEvent applies one timed transition.
func (w *writer) resvEvent(c *ResvEvent) any {
	if c.Kind == ResvEventPurge {
		var old []*model.Reservation
		it, _ := w.txn.Get(tableResvs, "id")
		for raw := it.Next(); raw != nil; raw = it.Next() {
			if r := raw.(*model.Reservation); r.Gone != 0 && r.Gone < c.Before {
				old = append(old, r)
			}
		}
		for _, r := range old {
			w.must(w.txn.Delete(tableResvs, r))
			w.touch(tableResvs)
		}
		return &ResvEventResult{Done: true}
	}
	r := w.resv(c.ID)
	if r == nil || r.Gone != 0 {
		return model.Err(model.PBSEUnknownResvID)
	}
	switch c.Kind {
	case ResvEventStart:
		if !r.Waiting() || c.Now < r.Start {
			return &ResvEventResult{}
		}
		r = r.Copy()
		if r.State == model.ResvDegraded {
			r.State, r.Mtime = model.ResvRunning, c.Now // substate stays DG (or IC)
		} else {
			r.State, r.Substate, r.Mtime = model.ResvRunning, model.ResvRunning, c.Now
		}
		w.setResvQueue(r.Queue, true, true, false)
		w.putResv(r)
		return &ResvEventResult{Done: true}
	case ResvEventEnd:
		if (r.State != model.ResvRunning && !r.Waiting()) || c.Now < r.End {
			return &ResvEventResult{}
		}
		w.endResv(r, c.Now)
		return &ResvEventResult{Done: true}
	case ResvEventProvision:
		return w.provisionResv(r, c.Now)
	case ResvEventIdle:
		return w.resvIdle(r, c.Now)
	}
	return fmt.Errorf("unknown reservation event %q", c.Kind)
}

// jobsInQueue returns the unfinished jobs of a queue in submission order.
func (w *writer) jobsInQueue(queue string) []*model.Job {
	var out []*model.Job
	it, _ := w.txn.Get(tableJobs, "id")
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if j := raw.(*model.Job); j.Queue == queue && !j.IsFinished() {
			out = append(out, j)
		}
	}
	sortJobs(out)
	return out
}

// killResvJob asks the agent to kill a running job of a reservation (as
// qdel does); the job ends in history with the reason in its comment.
func (w *writer) killResvJob(j *model.Job, why string, now int64) {
	if j.KillRequested() {
		return
	}
	j = j.Copy()
	j.SetKillRequested(true)
	j.SetDeleter(resvDeleter)
	j.Mtime = now
	j.Comment = why
	w.note(j, now, "%s", why)
	w.putJob(j)
}

// deleteQueuedJob ends a job that never ran, into history, with a comment
// that says why (never silently).
func (w *writer) deleteQueuedJob(j *model.Job, why string, now int64) {
	j = j.Copy()
	j.Substate = model.SubTerminated
	j.SetDeleter(resvDeleter)
	j.SetObit(now)
	j.Mtime = now
	j.Comment = why
	w.note(j, now, "%s", why)
	w.toHistory(j)
}

// endResv ends the current occurrence. Running jobs are killed. For a
// standing reservation with occurrences left, queued jobs stay for the
// next one; otherwise they are moved to the server's default queue (or,
// without one, put in history) with a comment saying so, rather than
// deleted silently as OpenPBS does.
func (w *writer) endResv(r *model.Reservation, now int64) {
	why := fmt.Sprintf("Reservation %s ended", r.ID)
	for _, j := range w.jobsInQueue(r.Queue) {
		if j.IsRunning() {
			w.killResvJob(j, "Job killed: "+why, now)
		}
	}
	r = r.Copy()
	r.Mtime = now
	if r.Standing() && r.Index < len(r.Occurrences) {
		r.Start = r.Occurrences[r.Index]
		r.Duration, r.OccurrenceDuration = r.LaterDuration(), 0 // pbs_ralter changed only the one that ended
		r.End = r.Start + r.Duration
		r.Index++
		r.State, r.Substate = model.ResvConfirmed, model.ResvConfirmed
		r.Provisioned = false
		r.Comment = fmt.Sprintf("Occurrence %d of %d", r.Index, r.Count)
		if len(r.BaseNodes) > 0 {
			// The replacements served one occurrence; the next is on the
			// reservation's own vnodes (degraded again if still down).
			r.Nodes, r.BaseNodes = r.BaseNodes, nil
		}
		r.RetryAt, r.Unavailable = 0, nil
		w.setResvQueue(r.Queue, true, false, false)
		w.putResv(r)
		return
	}
	w.rehomeQueued(r, why, now)
	r.State, r.Substate = model.ResvFinished, model.ResvFinished
	r.Gone = now
	r.Comment = why
	w.setResvQueue(r.Queue, false, false, true)
	w.putResv(r)
}

// rehomeQueued moves the jobs of an ended reservation that never ran to
// the default queue, where they keep their place in the job order.
func (w *writer) rehomeQueued(r *model.Reservation, why string, now int64) {
	cfg := w.meta().Config
	dq, ok := cfg.Queues[cfg.DefaultQueue]
	target := ""
	if ok && dq.Enabled && !model.IsResvQueue(cfg.DefaultQueue) {
		target = cfg.DefaultQueue
	}
	for _, j := range w.jobsInQueue(r.Queue) {
		if j.IsRunning() {
			continue
		}
		if target == "" {
			w.deleteQueuedJob(j, "Job deleted: "+why+" before it could run (no default queue)", now)
			continue
		}
		j = j.Copy()
		j.Queue = target
		j.Qtime, j.Mtime = now, now
		j.Comment = fmt.Sprintf("%s before the job ran; moved to queue %s", why, target)
		w.note(j, now, "%s", j.Comment)
		w.putJob(j)
	}
}

// deleteResv is pbs_rdel: the reservation, its queue and its jobs go.
func (w *writer) deleteResv(c *DeleteResv) any {
	r := w.resv(c.ID)
	if r == nil || r.Gone != 0 {
		return model.Err(model.PBSEUnknownResvID)
	}
	why := fmt.Sprintf("Reservation %s deleted at request of %s", r.ID, c.Requestor)
	for _, j := range w.jobsInQueue(r.Queue) {
		if j.IsRunning() {
			w.killResvJob(j, "Job killed: "+why, c.Now)
		} else {
			w.deleteQueuedJob(j, "Job deleted: "+why, c.Now)
		}
	}
	w.dropResvProvisioning(r, c.Now)
	r = r.Copy()
	r.State, r.Substate = model.ResvDeleted, model.ResvDeleted
	r.Gone, r.Mtime = c.Now, c.Now
	r.Comment = why
	w.setResvQueue(r.Queue, false, false, true)
	w.putResv(r)
	return nil
}

// resvHosts returns the hosts of a reservation's vnodes, in resv_nodes
// order.
func resvHosts(r *model.Reservation) []string {
	var hosts []string
	seen := map[string]bool{}
	for _, ec := range r.Nodes {
		for _, s := range ec.Shares {
			if !seen[s.Host] {
				seen[s.Host] = true
				hosts = append(hosts, s.Host)
			}
		}
	}
	return hosts
}

// provisionResv queues the provisioning of an AOE reservation's hosts that
// are not on its AOE yet: one operation per host, owned by the
// reservation (ProvOp.JobID is the reservation id), through the same
// dispatcher as jobs. A host where a job still runs is reported busy and
// retried by the leader.
func (w *writer) provisionResv(r *model.Reservation, now int64) any {
	if r.AOE == "" || r.Provisioned || !r.Active() {
		return &ResvEventResult{Done: true}
	}
	res := &ResvEventResult{}
	seq := int64(w.index) << 16
	var queued []string
	for i, h := range resvHosts(r) {
		vs := w.vnodesOnHost(h)
		onAOE := len(vs) > 0
		for _, v := range vs {
			onAOE = onAOE && v.CurrentAOE == r.AOE
		}
		if onAOE {
			continue
		}
		if op := w.provOp(h); op != nil {
			if op.JobID != r.ID {
				res.Busy = append(res.Busy, h)
			}
			continue
		}
		busy := false
		for _, v := range vs {
			if len(v.Jobs) > 0 || v.State&(model.NodeDown|model.NodeOffline) != 0 {
				busy = true
			}
		}
		if busy {
			res.Busy = append(res.Busy, h)
			continue
		}
		w.queueProvOp(&model.ProvOp{Host: h, AOE: r.AOE, JobID: r.ID, Seq: seq + int64(i)}, vs, now)
		queued = append(queued, h)
	}
	if len(queued) > 0 {
		w.bumpEpoch()
	}
	r = r.Copy()
	r.Mtime = now
	if len(queued) > 0 {
		sort.Strings(queued)
		r.Comment = fmt.Sprintf("Provisioning of hosts %v with AOE %s queued before the start", queued, r.AOE)
	}
	if len(res.Busy) == 0 {
		r.Provisioned = true
		res.Done = true
	}
	w.putResv(r)
	return res
}

// dropResvProvisioning drops the waiting provisioning operations of a
// deleted reservation; started ones finish node-side.
func (w *writer) dropResvProvisioning(r *model.Reservation, now int64) {
	j := &model.Job{ID: r.ID}
	w.provisionDetach(j, now)
}
