package raftstore

import (
	"reflect"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// RuntimeAlterable are the resources qalter may change on a running job.
var runtimeAlterable = map[string]bool{"cput": true, "walltime": true, "soft_walltime": true, "min_walltime": true, "max_walltime": true}

// CheckRunningAlter returns PBSEModAtrRun naming the first resource that
// differs between a running job's request and list, other than the ones a
// running job may change. The server calls it to answer early; the FSM
// calls it again because the job may have started since.
func CheckRunningAlter(j *model.Job, list map[string]string) error {
	names := map[string]bool{}
	for k := range j.ResourceList {
		names[k] = true
	}
	for k := range list {
		names[k] = true
	}
	for _, k := range model.SortedKeys(names) {
		if !runtimeAlterable[k] && j.ResourceList[k] != list[k] {
			return model.Errorf(model.PBSEModAtrRun, " Resource_List.%s", k)
		}
	}
	return nil
}

// pendingJob returns a job that has not started (Q, H, W), or the error a
// command about it gets.
func (w *writer) liveJob(id string) (*model.Job, error) {
	j := w.job(id)
	if j == nil {
		return nil, model.Err(model.PBSEUnknownJobID)
	}
	if j.IsFinished() {
		return nil, model.Err(model.PBSEHistJobID)
	}
	return j, nil
}

func (w *writer) holdJob(c *HoldJob) any {
	j, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	if err := refuseProvisioning(j, false); err != nil { // provisioning hook point
		return err
	}
	j = j.Copy()
	for _, r := range c.Holds {
		j.Hold = addHold(j.Hold, string(r))
	}
	j.Mtime = c.Now
	if !j.IsRunning() {
		evalState(j, c.Now)
	}
	w.note(j, c.Now, "Holds %s set at request of %s", c.Holds, c.Requestor)
	w.putJob(j)
	return nil
}

func (w *writer) releaseJob(c *ReleaseJob) any {
	j, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	j = j.Copy()
	j.Hold = removeHolds(j.Hold, c.Holds)
	j.Mtime = c.Now
	if !j.IsRunning() {
		evalState(j, c.Now)
	}
	w.note(j, c.Now, "Holds %s released at request of %s", c.Holds, c.Requestor)
	w.putJob(j)
	return nil
}

func (w *writer) alterJob(c *AlterJob) any {
	j, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	if err := refuseProvisioning(j, false); err != nil { // provisioning hook point
		return err
	}
	if c.Resources != nil && j.IsRunning() {
		if err := CheckRunningAlter(j, c.Resources.List); err != nil {
			return err
		}
		if !reflect.DeepEqual(c.Resources.Place, j.Place) {
			return model.Errorf(model.PBSEModAtrRun, " Resource_List.place")
		}
	}
	if c.MaxRunSubjobs != nil && (j.Array == nil || *c.MaxRunSubjobs < 0) {
		return model.Errorf(model.PBSEBadAttrVal, " max_run_subjobs")
	}
	var pending, before []model.Dep
	if c.Depend != nil {
		if j.IsRunning() {
			return model.Errorf(model.PBSEModAtrRun, " depend")
		}
		if pending, before, err = w.resolveDeps(c.Deps); err != nil {
			return err
		}
	}
	j = j.Copy()
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&j.Name, c.Name)
	set(&j.Account, c.Account)
	set(&j.Project, c.Project)
	set(&j.Mail, c.MailPoints)
	set(&j.MailTo, c.MailUsers)
	set(&j.Join, c.Join)
	set(&j.Keep, c.Keep)
	set(&j.Output, c.Output)
	set(&j.Error, c.Error)
	set(&j.Shell, c.Shell)
	setExt := func(setter func(string), v *string) {
		if v != nil {
			setter(*v)
		}
	}
	setExt(j.SetGroupList, c.GroupList)
	setExt(j.SetStagein, c.Stagein)
	setExt(j.SetStageout, c.Stageout)
	set(&j.Hold, c.Hold)
	if c.Priority != nil {
		j.Priority = *c.Priority
	}
	if c.Rerun != nil {
		j.Rerun = *c.Rerun
	}
	if c.ExecTime != nil {
		j.SetExecTime(*c.ExecTime)
	}
	if c.MaxRunSubjobs != nil {
		// Lowering it below the running count stops no subjob; no new
		// one starts until the count is under the limit.
		j.Array.MaxRun = *c.MaxRunSubjobs
	}
	if c.Resources != nil {
		if c.Resources.List["soft_walltime"] != j.ResourceList["soft_walltime"] {
			j.SetEstSoftWalltime(0) // a new soft walltime starts a new estimate
		}
		j.ResourceList = c.Resources.List
		j.Select = c.Resources.Select
		j.Place = c.Resources.Place
		// A new request may fit where the old one could never run.
		j.SetNeverRunEpoch(0)
	}
	if c.Depend != nil {
		j.SetDepend(*c.Depend)
		j.SetDeps(pending)
		if len(pending) > 0 {
			j.Hold = addHold(j.Hold, "s")
		}
	}
	j.Mtime = c.Now
	if !j.IsRunning() {
		evalState(j, c.Now)
	}
	w.note(j, c.Now, "Job modified at request of %s", c.Requestor)
	w.putJob(j)
	for _, d := range before {
		w.addBefore(j, d, c.Now)
	}
	return nil
}

func (w *writer) signalJob(c *SignalJob) any {
	j, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	if err := refuseProvisioning(j, false); err != nil { // provisioning hook point
		return err
	}
	switch c.Signal {
	case "suspend", "admin-suspend":
		if j.State != model.StateRunning || j.Substate != model.SubRunning {
			return model.Err(model.PBSEBadState)
		}
		w.shiftCpus(j, -1, c.Now)
		j = j.Copy()
		j.State, j.Substate = model.StateSuspended, model.SubSuspended
	case "resume", "admin-resume":
		if j.State != model.StateSuspended {
			return model.Err(model.PBSEBadState)
		}
		w.shiftCpus(j, +1, c.Now)
		j = j.Copy()
		j.State, j.Substate = model.StateRunning, model.SubRunning
	default:
		if j.State != model.StateRunning && j.State != model.StateSuspended {
			return model.Err(model.PBSEBadState)
		}
		if err := refuseContinue(j, c.Signal); err != nil { // apply_preempt.go
			return err
		}
		j = j.Copy()
	}
	n := 1
	if len(j.Signals()) > 0 {
		n = j.Signals()[len(j.Signals())-1].N + 1
	}
	j.SetSignals(append(j.Signals(), model.Sig{N: n, Signal: c.Signal}))
	j.Mtime = c.Now
	w.note(j, c.Now, "Signal %s sent at request of %s", c.Signal, c.Requestor)
	w.putJob(j)
	if strings.Contains(c.Signal, "suspend") || strings.Contains(c.Signal, "resume") {
		w.bumpEpoch()
	}
	return nil
}

// shiftCpus gives a suspended job's cpus back to its vnodes (dir -1) or
// takes them again on resume (dir +1). The job stays listed on its vnodes
// so its agent and pbsnodes still see it. A resume takes the cpus even if
// another job got them meanwhile (the operator asked for it), as OpenPBS
// does.
func (w *writer) shiftCpus(j *model.Job, dir float64, now int64) {
	for _, name := range j.Vnodes() {
		v := w.vnode(name)
		if v == nil {
			continue
		}
		v = v.Copy()
		if v.Assigned == nil {
			v.Assigned = map[string]float64{}
		}
		for _, ec := range j.Exec {
			for _, s := range ec.Shares {
				if s.Vnode == name {
					v.Assigned["ncpus"] += dir * s.Amounts["ncpus"]
				}
			}
		}
		if v.Assigned["ncpus"] <= 0 {
			delete(v.Assigned, "ncpus")
		}
		before := v.State
		v.RecomputeBusy()
		if v.State != before {
			v.LastStateChange = now
		}
		w.putVnode(v)
	}
}

func (w *writer) moveJob(c *MoveJob) any {
	j, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	if j.IsRunning() {
		return model.Err(model.PBSEBadState)
	}
	q, ok := w.meta().Config.Queues[c.Queue]
	if !ok {
		return model.Err(model.PBSEUnknownQueue)
	}
	if !q.Enabled {
		return model.Err(model.PBSEQueueNotEnabled)
	}
	j = j.Copy()
	j.Queue = c.Queue
	j.Qtime, j.Mtime = c.Now, c.Now
	w.note(j, c.Now, "Job moved to queue %s at request of %s", c.Queue, c.Requestor)
	w.putJob(j)
	return nil
}

func (w *writer) rerunJob(c *RerunJob) any {
	j, err := w.liveJob(c.JobID)
	if err != nil {
		return err
	}
	if j.State != model.StateRunning && j.State != model.StateSuspended {
		return model.Err(model.PBSEBadState)
	}
	if !j.Rerun {
		return model.Err(model.PBSENoRerun)
	}
	j = j.Copy()
	w.note(j, c.Now, "Job to be rerun at request of %s", c.Requestor)
	if c.Force {
		w.requeue(j, "Job rerun at request of "+c.Requestor, c.Now)
		return nil
	}
	j.SetKillRequested(true)
	j.SetRequeueOnEnd(true)
	j.Mtime = c.Now
	w.putJob(j)
	return nil
}

func (w *writer) runJobNow(c *RunJobNow) any {
	j, err := w.liveJob(c.Run.JobID)
	if sub, _ := w.pendingSubjob(c.Run.JobID); err != nil && sub != nil {
		j, err = sub, nil // a queued subjob: run makes its record
	}
	if err != nil {
		return err
	}
	if j.State != model.StateQueued {
		return model.Err(model.PBSEBadState)
	}
	if !w.run(&c.Run, c.Now) {
		return model.Err(model.PBSEResourceUnavail)
	}
	j = w.job(c.Run.JobID).Copy()
	w.note(j, c.Now, "Job run by qrun at request of %s", c.Requestor)
	w.putJob(j)
	return nil
}

func (w *writer) releaseWaiting(c *ReleaseWaiting) any {
	for _, id := range c.JobIDs {
		j := w.job(id)
		if j == nil || j.State != model.StateWaiting || j.ExecTime() > c.Now {
			continue
		}
		j = j.Copy()
		evalState(j, c.Now)
		j.Etime, j.Mtime = c.Now, c.Now
		w.note(j, c.Now, "Execution_Time reached, job eligible to run")
		w.putJob(j)
	}
	return nil
}

func (w *writer) markVnodes(c *MarkVnodes) any {
	var vs []*model.Vnode
	for _, name := range c.Vnodes {
		v := w.vnode(name)
		if v == nil {
			return model.Errorf(model.PBSEUnknownNode, "%s", name)
		}
		vs = append(vs, v)
	}
	for _, v := range vs {
		v = v.Copy()
		before := v.State
		if c.Offline != nil {
			if *c.Offline {
				v.State |= model.NodeOffline
			} else {
				v.State &^= model.NodeOffline
			}
		}
		if c.Comment != nil {
			v.Comment = *c.Comment
		}
		if v.State != before {
			v.LastStateChange = c.Now
		}
		w.putVnode(v)
	}
	w.bumpEpoch()
	return nil
}
