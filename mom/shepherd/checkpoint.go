package shepherd

import (
	"github.com/strata-hpc/strata/model"
)

// Preemption by checkpoint (docs/scheduling.md, "Preemption"). The server
// adds a "checkpoint" signal request to the job; the shepherd, which
// delivers signal requests, runs the site's execjob_checkpoint hooks (the
// job hooks snapshot taken at launch, like every job event) while the job
// is still running, then terminates the job as a kill request does
// (SIGTERM, SIGKILL after kill_delay). The server requeues the job when
// its end is reported. OpenPBS runs a mom "$action checkpoint" script
// here; a hook is managed with qmgr and reaches every agent by itself.
//
// A hook that rejects or fails does not keep the job running: the
// preemptor was promised the vnodes, so the job is requeued as with
// preempt_order R (the hook's rejection is in the job's hook log and
// the agent's log). With no hook at all the same happens.

// checkpointEvent is the agent hook event of a checkpoint.
const checkpointEvent = "execjob_checkpoint"

// checkpoint runs the checkpoint hooks for the job whose process group
// (and session) is pgid.
func (r *jobRunner) checkpoint(pgid int) {
	j := r.job.Dup()   // its own JobExt: hooks see a copy
	j.SessionID = pgid // the hook needs the processes to checkpoint
	if out := r.runJobHooks(checkpointEvent, &j); out != nil {
		r.logger.Printf("job %s: checkpoint hook did not accept (%s); the job is requeued without a checkpoint", r.job.ID, out.Message)
		return
	}
	r.logger.Printf("job %s: checkpointed for preemption", r.job.ID)
}

// isCheckpoint reports whether a signal request asks for a checkpoint.
func isCheckpoint(s string) bool { return s == model.SigCheckpoint }
