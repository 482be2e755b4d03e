package model

// Exit_status values of hook outcomes on the execution host (PBS's
// JOB_EXEC_* numbers).
const (
	// ExitFailHookRerun: an execjob_begin or execjob_prologue hook rejected
	// the job before it ran; the job is requeued for a later retry.
	ExitFailHookRerun = -16
	// ExitFailHookDelete: a hook rejection that deletes the job at its end.
	ExitFailHookDelete = -17
	// ExitHookRerun: a hook asked for the job to be requeued.
	ExitHookRerun = -18
	// ExitHookDelete: a hook asked for the job to be deleted.
	ExitHookDelete = -19
	// ExitHookError: a hook failed (alarm, malformed output, could not
	// run) before the job ran; the job is requeued.
	ExitHookError = -22
)

// RequeueExit reports whether a start failure with this exit requeues the
// job whatever its Rerunable attribute says: the job never ran, so running
// it again repeats nothing (PBS requeues on these; run_count still counts
// the attempt, so a hook that always rejects ends in a hold).
func RequeueExit(exit int) bool {
	switch exit {
	case ExitFailHookRerun, ExitHookRerun, ExitHookError:
		return true
	}
	return false
}
