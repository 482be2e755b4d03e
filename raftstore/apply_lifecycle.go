package raftstore

import (
	"github.com/strata-hpc/strata/model"
)

// maxRunCount is how many times a job may be started before it is held
// (PBS holds at run_count > 20).
const maxRunCount = 20

// --- agents and hosts -----------------------------------------------------

func (w *writer) register(c *RegisterHost) any {
	defs := w.meta().Config.Defs
	changed := false
	// A registered host always has a work index, so an agent's first poll
	// (index 0) is answered at once and later polls can block.
	w.touchHost(c.Host)
	keep := map[string]bool{}
	for _, in := range c.Vnodes {
		keep[in.Name] = true
		old := w.vnode(in.Name)
		v := in.Copy()
		v.Host, v.Mom = c.Host, c.Host
		v.BootID, v.Version, v.Pcpus = c.BootID, c.Version, c.Pcpus
		if old != nil {
			v.Admin = old.Copy().Admin
			v.ApplyAdmin()
		}
		v.DeriveCapacity(defs)
		if old != nil {
			// What the server tracks survives re-registration: the jobs on
			// the vnode and an operator's offline mark and comment.
			v.Assigned, v.Jobs, v.ExclusiveJob = old.Copy().Assigned, old.Copy().Jobs, old.ExclusiveJob
			v.State = old.State &^ (model.NodeDown | model.NodeStateUnknown)
			v.LastStateChange, v.LastUsed = old.LastStateChange, old.LastUsed
			if old.State&model.NodeOffline != 0 || v.Admin["comment"] != "" {
				v.Comment = old.Comment
			}
			if v.State != old.State || !sameStrings(v.Available, old.Available) {
				changed = true
			}
		} else {
			changed = true
		}
		if old == nil || v.State != old.State {
			v.LastStateChange = c.Now
		}
		v.RecomputeBusy()
		w.putVnode(v)
	}
	w.provisionRegistered(c) // provisioning hook point: new boot id, detected AOE
	for _, old := range w.vnodesOnHost(c.Host) {
		if !keep[old.Name] && len(old.Jobs) == 0 {
			w.must(w.txn.Delete(tableVnodes, old))
			w.touch(tableVnodes)
			changed = true
		}
	}
	// Jobs the server believes this host runs but the agent does not know
	// were lost with it (a reboot, a wiped spool).
	known := map[string]bool{}
	for _, id := range c.Jobs {
		known[id] = true
	}
	for _, j := range w.jobsOnHost(c.Host) {
		if j.State == model.StateRunning && j.Substate == model.SubRunning && !known[j.ID] {
			w.lose(j, "Job lost when its mother superior "+c.Host+" restarted", model.ExitInitAbort, c.Now)
		}
	}
	if changed {
		w.bumpEpoch()
	}
	return nil
}

func (w *writer) hostDown(c *HostDown) any {
	for _, v := range w.vnodesOnHost(c.Host) {
		if v.State&model.NodeDown != 0 {
			continue
		}
		v = v.Copy()
		v.State |= model.NodeDown
		v.LastStateChange = c.Now
		if v.State&model.NodeOffline == 0 {
			v.Comment = c.Comment
		}
		w.putVnode(v)
	}
	w.bumpEpoch()
	return nil
}

// --- job events from agents -----------------------------------------------

func (w *writer) jobEvents(c *JobEvents) any {
	for _, ev := range c.Events {
		j := w.job(ev.JobID)
		// Stale or duplicate reports (a retry after a lost reply, an event
		// from an earlier run) are dropped: events are idempotent.
		if j == nil || !j.IsRunning() || j.MSHost() != c.Host || (ev.Run != 0 && ev.Run != j.RunCount) {
			continue
		}
		switch ev.Kind {
		case model.JobEventStarted:
			if j.Substate != model.SubPrerun {
				continue
			}
			j = j.Copy()
			j.Substate = model.SubRunning
			j.SessionID = ev.SessionID
			j.Mtime = c.Now
			w.note(j, c.Now, "Job started on %s, session %d", c.Host, ev.SessionID)
			w.putJob(j)
			w.acctStarted(j, c.Now)
		case model.JobEventUsage:
			// Live resources_used of a running (or suspended) job; the
			// ended event carries the final figures.
			if len(ev.Used) == 0 || j.State == model.StateExiting || sameStrings(j.Used, ev.Used) {
				continue
			}
			w.chargeFairshare(j, j.Used, ev.Used) // apply_fairshare.go
			j = j.Copy()
			j.Used = ev.Used
			w.putJob(j)
		case model.JobEventEnded:
			w.endReported = j.ID // workview.go
			w.finish(j, ev.Exit, ev.Used, ev.Comment, c.Now)
			w.endReported = ""
		case model.JobEventFailed:
			w.lose(j, ev.Comment, ev.Exit, c.Now)
		case model.JobEventStageinFailed:
			w.stageinFailed(j, ev.Comment, c.Now)
		}
	}
	return nil
}

// finish ends a job that ran: resources go back, and the job becomes
// history (or disappears when history is off).
func (w *writer) finish(j *model.Job, exit int, used map[string]string, detail string, now int64) {
	if j.RequeueOnEnd() && j.Deleter() == "" {
		// qrerun's kill (or a checkpoint for preemption): the job goes
		// back to the queue.
		comment := "Job rerun at request of an operator"
		if j.Preempting() != "" {
			comment = model.PreemptComment(j.Preempting())
		}
		w.requeue(j.Copy(), comment, now)
		return
	}
	w.release(j, now)
	if used != nil {
		w.chargeFairshare(j, j.Used, used) // apply_fairshare.go
	}
	j = j.Copy()
	e := exit
	j.Exit = &e
	if used != nil {
		j.Used = used
	}
	w.acctEnded(j, exit, now)
	j.SetObit(now)
	j.Mtime = now
	j.SetMSHost("")
	j.SetKillRequested(false)
	switch {
	case j.Deleter() != "":
		j.Substate = model.SubTerminated
		j.Comment += " and terminated"
	case exit == model.ExitKillWalltime:
		j.Substate = model.SubFailed
		j.Comment += " and exceeded resource walltime"
	case exit == 0:
		j.Substate = model.SubFinished
		j.Comment += " and finished"
	default:
		j.Substate = model.SubFailed
		j.Comment += " and failed"
	}
	if detail != "" {
		j.Comment += "; " + detail
	}
	usedText := ""
	for _, k := range model.SortedKeys(j.Used) {
		usedText += " resources_used." + k + "=" + j.Used[k]
	}
	w.note(j, now, "Exit_status=%d%s", exit, usedText)
	if detail != "" {
		// The agent's detail (output that could not be delivered, a
		// failed stage-out...) is also in tracejob, not only the comment.
		w.note(j, now, "%s", detail)
	}
	w.toHistory(j)
}

// toHistory stores a finished job as F, or removes it when history is off.
// Jobs that depend on it are settled in the same transaction.
func (w *writer) toHistory(j *model.Job) {
	j.State = model.StateFinished
	if j.IsSubjob() {
		j.State, j.Substate = model.StateExpired, model.SubExpired
	}
	j.SetDeps(nil)
	if !w.meta().Config.JobHistoryEnable {
		w.deleteJobRow(j)
	} else {
		w.putJob(j)
	}
	w.parentChanged(j, j.Mtime)
	if j.IsSubjob() {
		w.subjobEnded(j, j.Mtime)
	}
}

// lose handles a job whose execution was lost or could not start: a
// rerunnable job goes back to the queue (held after too many attempts),
// any other job ends with the given exit status.
func (w *writer) lose(j *model.Job, comment string, exit int, now int64) {
	if (!j.Rerun && !model.RequeueExit(exit)) || j.Deleter() != "" {
		w.finish(j, exit, nil, comment, now)
		return
	}
	w.requeue(j.Copy(), "Job requeued: "+comment, now)
}

// requeue puts a running job (a copy) back in the queue, or holds it after
// too many attempts.
func (w *writer) requeue(j *model.Job, comment string, now int64) {
	w.acctRerun(j, now)
	w.release(j, now)
	j.State, j.Substate = model.StateQueued, model.SubQueued
	j.Exec = nil
	j.SetMSHost("")
	j.SetExclusive(false)
	j.SessionID = 0
	j.SetKillRequested(false)
	j.SetRequeueOnEnd(false)
	j.SetPreempting("")
	// Signal requests belong to the run that ended: the next run
	// must not receive the old run's signals.
	j.SetSignals(nil)
	j.Mtime, j.Qtime = now, now
	j.Comment = comment
	w.note(j, now, "%s", comment)
	if j.RunCount > maxRunCount {
		j.State, j.Substate = model.StateHeld, model.SubHeld
		j.Hold = addHold(j.Hold, "s")
		j.Comment = "job held, too many failed attempts to run"
	}
	w.putJob(j)
}

// stageinFailed puts a job whose stage-in failed back to wait, as PBS
// does: its resources go back, Execution_Time moves StageFailWait
// seconds ahead (unless already later) and it shows W with substate 37
// and the copy error as its comment until then.
func (w *writer) stageinFailed(j *model.Job, comment string, now int64) {
	if j.Deleter() != "" {
		// qdel raced the stage-in: the job ends rather than waits.
		w.finish(j, model.ExitFail1, nil, "Stage-in failed: "+comment, now)
		return
	}
	w.release(j, now)
	j = j.Copy()
	j.Exec = nil
	j.SetMSHost("")
	j.SetExclusive(false)
	j.SessionID = 0
	j.SetKillRequested(false)
	j.SetRequeueOnEnd(false)
	j.SetSignals(nil)
	j.Mtime, j.Qtime = now, now
	if j.ExecTime() < now+model.StageFailWait {
		j.SetExecTime(now + model.StageFailWait)
	}
	j.State, j.Substate = model.StateWaiting, model.SubStageFail
	j.Comment = "Stage-in failed: " + comment
	w.note(j, now, "%s", j.Comment)
	w.putJob(j)
}

func addHold(h, t string) string {
	if h == "" || h == "n" {
		return t
	}
	for _, r := range h {
		if string(r) == t {
			return h
		}
	}
	return h + t
}

// --- qdel -----------------------------------------------------------------

func (w *writer) deleteJob(c *DeleteJob) any {
	if res, ok := w.deleteArrayID(c); ok {
		return res
	}
	j := w.job(c.JobID)
	if j == nil {
		return model.Errorf(model.PBSEUnknownJobID, "")
	}
	if err := refuseProvisioning(j, c.Force); err != nil { // provisioning hook point
		return err
	}
	switch {
	case j.IsFinished():
		if !c.Purge {
			return model.Err(model.PBSEHistJobID)
		}
		w.deleteJobRow(j)
	case j.IsRunning() && j.KillRequested() && !c.Force:
		// A delete is already under way: nothing more to record (one D
		// record per job); the agent already has the kill request.
		return nil
	case j.IsRunning() && c.Force:
		j = j.Copy()
		j.SetDeleter(c.Requestor)
		w.note(j, c.Now, "Job deleted at request of %s", c.Requestor)
		w.acctDeleted(j.ID, c.Requestor, c.Now)
		w.finish(j, 271, nil, "deleted with -W force", c.Now)
	case j.IsRunning():
		j = j.Copy()
		j.SetKillRequested(true)
		j.SetDeleter(c.Requestor)
		j.Mtime = c.Now
		w.note(j, c.Now, "Job to be deleted at request of %s", c.Requestor)
		w.acctDeleted(j.ID, c.Requestor, c.Now)
		w.putJob(j)
	default:
		j = j.Copy()
		j.Substate = model.SubTerminated
		j.SetDeleter(c.Requestor)
		j.SetObit(c.Now)
		j.Mtime = c.Now
		w.note(j, c.Now, "Job deleted at request of %s", c.Requestor)
		w.acctDeleted(j.ID, c.Requestor, c.Now)
		if c.Purge {
			w.deleteJobRow(j)
			j.State = model.StateFinished
			w.parentChanged(j, c.Now)
			if j.IsSubjob() {
				w.subjobEnded(j, c.Now)
			}
			return nil
		}
		w.toHistory(j)
	}
	return nil
}

func (w *writer) requeueJobs(c *RequeueJobs) any {
	for _, id := range c.JobIDs {
		if j := w.job(id); j != nil && j.IsRunning() {
			w.lose(j, c.Comment, model.ExitNodeLost, c.Now)
		}
	}
	return nil
}

func (w *writer) purge(c *PurgeHistory) any {
	var old []*model.Job
	for _, state := range []string{model.StateFinished, model.StateExpired} {
		for _, j := range jobsInState(w.txn, state) {
			if j.Obit() < c.Before {
				old = append(old, j)
			}
		}
	}
	eachDone(w.txn, "", func(r *finishedSubjob) error {
		if r.Obit < c.Before {
			old = append(old, joinSubjob(r))
		}
		return nil
	})
	for _, j := range old {
		w.deleteJobRow(j)
	}
	return len(old)
}

func (w *writer) setConfig(c *SetServerConfig) any {
	m := w.meta()
	m.Config = c.Config
	m.Epoch++
	w.putMeta(m)
	// Capacities depend on the resource definitions.
	it, _ := w.txn.Get(tableVnodes, "id")
	var vs []*model.Vnode
	for raw := it.Next(); raw != nil; raw = it.Next() {
		vs = append(vs, raw.(*model.Vnode))
	}
	for _, v := range vs {
		v = v.Copy()
		v.DeriveCapacity(c.Config.Defs)
		w.putVnode(v)
	}
	return nil
}

func sameStrings(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
