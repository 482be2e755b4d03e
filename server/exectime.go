package server

import (
	"context"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// execTimeLoop moves jobs whose Execution_Time has come from W to Q. It
// looks only at replicated state (the W jobs and their times), so a new
// leader releases every job that came due while there was none.
func (s *Server) execTimeLoop(ctx context.Context) {
	every(ctx, time.Second, true, s.releaseDueJobs)
}

func (s *Server) releaseDueJobs() {
	now := s.now().Unix()
	var due []string
	for _, j := range s.state().JobsInState(model.StateWaiting) {
		if j.ExecTime() <= now {
			due = append(due, j.ID)
		}
	}
	if len(due) == 0 {
		return
	}
	if _, err := s.apply(&raftstore.ReleaseWaiting{JobIDs: due, Now: now}); err != nil {
		s.logger.Printf("release waiting jobs: %v", err)
	}
}
