package server

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// When mail is sent (docs/reservations.md and docs/jobs.md, "Mail"): each
// function runs on the leader after the change it reports was committed,
// and compares the state before and after so that an agent's retried
// report or a repeated event mails nobody twice.

// mailJobEvents mails what a batch of agent reports did: b when a job
// began execution, e when it ended normally, a when it was aborted (it
// could not start, or was killed or failed with a negative or signal exit
// status).
func (s *Server) mailJobEvents(before *raftstore.StateSnapshot, events []model.JobEvent) {
	after := s.state()
	cfg := after.Config()
	for _, e := range events {
		old, j := before.Job(e.JobID), after.Job(e.JobID)
		if old == nil || j == nil || old.Mail == "n" {
			continue
		}
		switch e.Kind {
		case model.JobEventStarted:
			if startTookEffect(old, j, e) {
				s.mailJob(&cfg, j, mailBegin, "")
			}
		case model.JobEventEnded, model.JobEventFailed:
			if old.IsFinished() || !j.IsFinished() {
				continue // stale, or requeued (a rerun is not an end)
			}
			exit := 0
			if j.Exit != nil {
				exit = *j.Exit
			}
			switch {
			case e.Kind == model.JobEventFailed || exit < 0 || exit >= 256 || j.Deleter() != "":
				text := fmt.Sprintf("Exit_status=%d", exit)
				if j.Comment != "" {
					text = j.Comment + "\n" + text
				}
				s.mailJob(&cfg, j, mailAbort, text)
			default:
				s.mailJob(&cfg, j, mailEnd, fmt.Sprintf("Exit_status=%d", exit))
			}
		}
	}
}

// startTookEffect tells whether a started report moved the run from
// prerun: the run's substate has moved on with the reported session. A
// short job's started and ended reports often come in one batch (the agent
// holds a started report briefly for company), and the job is then
// already finished after the batch; it began all the same.
func startTookEffect(old, j *model.Job, e model.JobEvent) bool {
	return old.Substate == model.SubPrerun && old.IsRunning() && old.RunCount == e.Run &&
		j.RunCount == e.Run && j.Substate != model.SubPrerun && j.SessionID == e.SessionID
}

// resvVerdictsDone logs the verdicts on alterations and mails the
// owners of confirmed reservations (c) and of denied new ones (a).
func (s *Server) resvVerdictsDone(ds []model.ResvDecision) {
	if len(ds) == 0 {
		return
	}
	snap := s.state()
	cfg := snap.Config()
	for _, d := range ds {
		r := snap.Reservation(d.ID)
		if r == nil {
			continue
		}
		switch {
		case r.Denied && r.Gone != 0:
			s.mailResv(&cfg, r, mailAbort, "Reservation denied: "+d.Reason)
		case !d.Confirm && r.AlterOutcome == model.ResvAlterDenied:
			s.logger.Printf("%s;%s: %s", r.ID, model.MsgResvAlterDenied, d.Reason)
		case d.Confirm || r.AlterOutcome == model.ResvAlterConfirmed:
			if r.AlterOutcome == model.ResvAlterConfirmed {
				s.logger.Printf("%s;Reservation alter confirmed", r.ID)
			}
			s.mailResv(&cfg, r, mailConfirm, "")
		}
	}
}

// newResvDecisions are the verdicts on new reservations, leaving out
// those on alterations (logged by resvVerdictsDone once applied).
func (s *Server) newResvDecisions(ds []model.ResvDecision) []model.ResvDecision {
	snap := s.state()
	var out []model.ResvDecision
	for _, d := range ds {
		if r := snap.Reservation(d.ID); r == nil || r.State != model.ResvBeingAltered {
			out = append(out, d)
		}
	}
	return out
}

// mailResvEvent mails a reservation's begin (b) and end (e).
func (s *Server) mailResvEvent(id, kind string) {
	snap := s.state()
	r := snap.Reservation(id)
	if r == nil {
		return
	}
	cfg := snap.Config()
	switch kind {
	case raftstore.ResvEventStart:
		s.mailResv(&cfg, r, mailBegin, "")
	case raftstore.ResvEventEnd:
		s.mailResv(&cfg, r, mailEnd, "")
	}
}

// mailResvDeleted mails the owner of a reservation deleted by pbs_rdel (a).
func (s *Server) mailResvDeleted(id string) {
	snap := s.state()
	r := snap.Reservation(id)
	if r == nil {
		return
	}
	cfg := snap.Config()
	s.mailResv(&cfg, r, mailAbort, r.Comment)
}

// mailDeletedQueued mails the abort (a) of a job qdel removed before it
// ran (a running one is mailed when its agent reports its end).
func (s *Server) mailDeletedQueued(before *model.Job, requestor string) {
	if before.Array != nil || before.IsRunning() || before.IsFinished() {
		return
	}
	snap := s.state()
	j := snap.Job(before.ID)
	switch {
	case j == nil:
		j = before // gone at once: no job history kept
	case !j.IsFinished():
		return
	}
	cfg := snap.Config()
	s.mailJob(&cfg, j, mailAbort, "Job deleted at request of "+requestor)
}
