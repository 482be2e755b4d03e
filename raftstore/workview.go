package raftstore

import "github.com/strata-hpc/strata/model"

// agentSeesChange reports whether replacing old with j changes anything
// the agent of j's mother superior acts on, and so whether the host's work
// index must move (which answers that agent's long poll with a fresh work
// list). The agent starts a run it finds at substate prerun without a
// record, reports lost one listed further along without a record, kills a
// run with KillRequested, delivers new Signals and forgets a run that has
// left the list (mom/work.go; the simulator's reconcile reads the same).
// Everything else about a run it has already started (resources_used,
// comments, history, its own "started" report) it never reads, and each
// such wake-up used to cost a work answer per job event: one for every
// started report and every usage report.
//
// The answer to the next poll still carries the whole current job, and a
// poll with an index the server does not have (a new agent, a new leader)
// is answered at once, so skipping these wake-ups hides nothing.
func agentSeesChange(old, j *model.Job) bool {
	if old == nil || old.MSHost() != j.MSHost() || old.RunCount != j.RunCount || old.State != j.State ||
		old.KillRequested() != j.KillRequested() || !sameSigs(old.Signals(), j.Signals()) {
		return true
	}
	if old.Substate != j.Substate {
		// The agent's own report that the run started; any other
		// substate change (provisioning, stage-in, exiting) is shown.
		return !(old.Substate == model.SubPrerun && j.Substate == model.SubRunning)
	}
	// A run not yet started is given to the agent whole when it starts
	// it: a change then is seen.
	return j.Substate == model.SubPrerun || !j.IsRunning()
}

func sameSigs(a, b []model.Sig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// leftHost moves the work index of the host a job's run has left, unless
// the run left because that host's agent reported its end in this entry:
// the agent knows, and forgets the run's record at its next work answer
// (usually the next run placed there). Any other departure (qdel -W
// force, requeue, a run moved elsewhere) wakes the agent, which must stop
// a run it still has.
func (w *writer) leftHost(jobID, host string) {
	if jobID != w.endReported {
		w.touchHost(host)
	}
}
