package raftstore

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// maxHistory bounds a job's event log: a job requeued many times must not
// grow without limit. The first event (the submission) is always kept.
const maxHistory = 64

// note appends an event to a job's log. j must be a copy the caller is
// about to store; the time is the command's, so every server writes the
// same log.
func (w *writer) note(j *model.Job, now int64, format string, args ...any) {
	ev := model.Event{Time: now, Text: fmt.Sprintf(format, args...)}
	typ := model.LogJob
	if strings.HasPrefix(ev.Text, "Exit_status=") {
		typ = model.LogJobUsage
	}
	w.logEvent(now, typ, "Job", j.ID, ev.Text)
	if len(j.History) >= maxHistory {
		h := make([]model.Event, 0, maxHistory)
		h = append(h, j.History[0])
		h = append(h, j.History[len(j.History)-maxHistory+2:]...)
		j.History = h
	}
	j.History = append(j.History, ev)
}

// evalState sets a job that is not running to the state its holds,
// dependencies and Execution_Time call for, in the order of PBS's
// svr_evaljobstate: hold, then execution time, else queued.
func evalState(j *model.Job, now int64) {
	switch {
	case len(j.Deps()) > 0:
		j.State, j.Substate = model.StateHeld, model.SubDependHold
	case j.Hold != "" && j.Hold != "n":
		j.State, j.Substate = model.StateHeld, model.SubHeld
	case j.ExecTime() > now:
		j.State, j.Substate = model.StateWaiting, model.SubWaiting
	case j.Array != nil && j.Array.Begun():
		j.State, j.Substate = model.StateBegun, model.SubArrayBegun
	default:
		j.State, j.Substate = model.StateQueued, model.SubQueued
	}
}

// removeHolds takes the letters of drop out of a Hold_Types value.
func removeHolds(h, drop string) string {
	var out []rune
	for _, r := range h {
		if r != 'n' && !containsRune(drop, r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return "n"
	}
	return string(out)
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

// jobsInStates lists the jobs in the given states.
func (w *writer) jobsInStates(states ...string) []*model.Job {
	var out []*model.Job
	for _, st := range states {
		out = append(out, jobsInState(w.txn, st)...)
	}
	sortJobs(out)
	return out
}
