package pbscmd

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// submitReq is a submission plus what only qsub itself acts on.
type submitReq struct {
	api.SubmitRequest
	// block is -W block=true: wait for the job and exit with its status.
	block bool
	// interactive is -I: the job is a terminal session (qsub_interactive.go).
	interactive bool
}

// blockedExitDeleted is qsub -W block=true's status when the job was
// deleted before it ran.
const blockedExitDeleted = 3

// waitBlocked waits for a job to finish and returns its Exit_status (3 if
// it never ran). It polls the server's history with a growing interval
// (at most 2 s): a blocked qsub may wait for days and must not load the
// server.
func waitBlocked(ctx context.Context, env *Env, s *session, id string) int {
	wait := 100 * time.Millisecond
	for {
		resp, err := s.client.Jobs(ctx, []string{id}, true)
		if err != nil {
			if reportConnect(env.Stderr, "qsub", err) {
				return 1
			}
			// The job vanished (history off): nothing more to learn.
			return 0
		}
		if len(resp.Jobs) == 1 && resp.Jobs[0].IsFinished() {
			if e := resp.Jobs[0].Exit; e != nil {
				return *e & 0xff
			}
			return blockedExitDeleted
		}
		select {
		case <-ctx.Done():
			return 1
		case <-time.After(wait):
		}
		if wait < 2*time.Second {
			wait *= 2
		}
	}
}
