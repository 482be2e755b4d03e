package server

import "github.com/strata-hpc/strata/model"

// logResvDecisions writes the server log lines of the scheduler's
// reservation verdicts (the plan's command carries them, see
// schedglue.Command).
func (s *Server) logResvDecisions(ds []model.ResvDecision) {
	for _, d := range ds {
		switch {
		case d.Reconfirm && d.Confirm:
			s.logger.Printf("%s;Reservation reconfirmed: unavailable vnodes replaced", d.ID)
			continue
		case d.Reconfirm:
			s.logger.Printf("%s;Reservation is in degraded mode: %s", d.ID, d.Reason)
			continue
		}
		if d.Confirm {
			s.logger.Printf("%s;Reservation confirmed", d.ID)
		} else {
			s.logger.Printf("%s;Reservation denied: %s", d.ID, d.Reason)
		}
	}
}
