package server

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// liveReservations are the reservations the scheduler looks at: every one
// that is not a tombstone.
func liveReservations(snap *raftstore.StateSnapshot) []*model.Reservation {
	var out []*model.Reservation
	for _, r := range snap.Reservations() {
		if r.Gone == 0 {
			out = append(out, r)
		}
	}
	return out
}

// resvPlan puts the scheduler's reservation verdicts into the plan's
// command and writes the server log lines.
func (s *Server) resvPlan(plan *scheduler.Plan, cmd *raftstore.ApplyPlan) {
	cmd.Resvs = plan.Resvs
	for _, d := range plan.Resvs {
		if d.Confirm {
			s.logger.Printf("%s;Reservation confirmed", d.ID)
		} else {
			s.logger.Printf("%s;Reservation denied: %s", d.ID, d.Reason)
		}
	}
}
