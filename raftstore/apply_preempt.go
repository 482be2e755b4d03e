package raftstore

import "github.com/strata-hpc/strata/model"

// Preemption in the FSM (docs/scheduling.md, "Preemption"): the plan's
// victims are preempted before its runs, so that the vnodes a suspend or a
// requeue frees are there for the job they were freed for. Each decision
// is checked against the current state again (the job may have ended or
// been deleted since the snapshot) and skipped when it no longer applies;
// the run that needed it then does not fit and is skipped too.

// LevelPreempt is the command level at which ApplyPlan carries preemption
// decisions (levels.go): a server below it would ignore them and start the
// preemptor on vnodes its victims still hold, so the leader plans no
// preemption while such a voter remains.
const LevelPreempt = 4

// preemptor is the requestor named in tracejob and accounting.
const preemptor = "Scheduler"

func (w *writer) applyPreempts(ps []model.Preemption, now int64) {
	for _, p := range ps {
		j := w.job(p.JobID)
		if j == nil || j.State != model.StateRunning || j.Substate != model.SubRunning || j.KillRequested() || j.Preempting() != "" {
			continue
		}
		switch p.Method {
		case model.PreemptSuspend:
			w.preemptSuspend(j, p, now)
		case model.PreemptCheckpoint:
			if !j.Rerun {
				continue
			}
			// The agent runs its checkpoint script, then kills the job;
			// the job's end requeues it (finish, RequeueOnEnd). Its
			// vnodes stay taken until then: the preemptor waits.
			j = j.Copy()
			j.SetSignals(appendSignal(j.Signals(), model.SigCheckpoint))
			j.SetRequeueOnEnd(true)
			j.SetPreempting(model.PreemptCheckpoint)
			j.SetPreemptedAt(now)
			j.Comment, j.Mtime = model.PreemptComment(p.Method), now
			w.note(j, now, "Job preempted by checkpointing for %s", p.By)
			w.account(now, model.AcctCheckpoint, j.ID, "%s", w.acctRun(j))
			w.putJob(j)
		case model.PreemptRequeue:
			if !j.Rerun {
				continue
			}
			j = j.Copy()
			j.SetPreemptedAt(now)
			w.note(j, now, "Job preempted by requeuing for %s", p.By)
			// Released now; the agent kills the run it no longer sees
			// listed (a requeued run's number has moved on).
			w.requeue(j, model.PreemptComment(p.Method), now)
		case model.PreemptDelete:
			j = j.Copy()
			j.SetDeleter(preemptor)
			j.SetPreemptedAt(now)
			w.note(j, now, "Job preempted by deletion for %s", p.By)
			w.acctDeleted(j.ID, preemptor, now)
			j.Comment = model.PreemptComment(p.Method)
			w.finish(j, model.ExitPreemptDeleted, nil, "", now)
		}
	}
}

// preemptSuspend stops a job as qsig -s suspend does (its cpus go back to
// its vnodes, the agent sends SIGSTOP to its processes), in substate 45 so
// that the scheduler, and only it, resumes it.
func (w *writer) preemptSuspend(j *model.Job, p model.Preemption, now int64) {
	w.shiftCpus(j, -1, now)
	j = j.Copy()
	j.State, j.Substate = model.StateSuspended, model.SubSchedSuspended
	j.SetSignals(appendSignal(j.Signals(), "suspend"))
	j.SetPreemptedAt(now)
	j.Mtime = now
	j.Comment = model.PreemptComment(p.Method)
	w.note(j, now, "Job preempted by suspension for %s", p.By)
	w.account(now, model.AcctSuspend, j.ID, "%s", acctIdentity(j))
	w.putJob(j)
	w.bumpEpoch()
}

// applyResumes resumes scheduler-suspended jobs whose cpus are free again.
func (w *writer) applyResumes(ids []string, now int64) {
	for _, id := range ids {
		j := w.job(id)
		if j == nil || j.State != model.StateSuspended || j.Substate != model.SubSchedSuspended || !w.cpusFree(j) {
			continue
		}
		w.shiftCpus(j, +1, now)
		j = j.Copy()
		j.State, j.Substate = model.StateRunning, model.SubRunning
		j.SetSignals(appendSignal(j.Signals(), "resume"))
		j.Mtime = now
		j.Comment = "Job resumed at " + pbsTime(now)
		w.note(j, now, "Job resumed at request of %s", preemptor)
		w.account(now, model.AcctResume, j.ID, "%s", acctIdentity(j))
		w.putJob(j)
		w.bumpEpoch()
	}
}

// cpusFree reports whether every vnode of a suspended job has its cpus
// free to take back.
func (w *writer) cpusFree(j *model.Job) bool {
	need := map[string]float64{}
	for _, ec := range j.Exec {
		for _, s := range ec.Shares {
			need[s.Vnode] += s.Amounts["ncpus"]
		}
	}
	for name, amt := range need {
		v := w.vnode(name)
		if v == nil || v.State&model.Unavailable != 0 || v.Free("ncpus") < amt {
			return false
		}
	}
	return true
}

// appendSignal adds a signal request numbered after the job's last.
func appendSignal(sigs []model.Sig, signal string) []model.Sig {
	n := 1
	if len(sigs) > 0 {
		n = sigs[len(sigs)-1].N + 1
	}
	return append(append([]model.Sig(nil), sigs...), model.Sig{N: n, Signal: signal})
}

// refuseContinue refuses SIGCONT to a suspended job: only a resume
// (which takes the job's cpus back) may run it again. Otherwise the owner
// of a job suspended for an express job could continue it with qsig -s
// CONT and run on cpus the express job was given.
func refuseContinue(j *model.Job, signal string) error {
	if j.State == model.StateSuspended && signal == "SIGCONT" {
		return model.Err(model.PBSEBadState)
	}
	return nil
}
