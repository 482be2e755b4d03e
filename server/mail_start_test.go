package server

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestBeginMailForStartAndEndInOneBatch: a short job's started and ended
// reports often arrive in one batch; the begin mail (-m b) is still due,
// and only when the started report took effect.
func TestBeginMailForStartAndEndInOneBatch(t *testing.T) {
	ev := model.JobEvent{JobID: "1.s", Kind: model.JobEventStarted, Run: 1, SessionID: 77}
	old := &model.Job{ID: "1.s", State: model.StateRunning, Substate: model.SubPrerun, RunCount: 1}
	running := &model.Job{ID: "1.s", State: model.StateRunning, Substate: model.SubRunning, RunCount: 1, SessionID: 77}
	finished := &model.Job{ID: "1.s", State: model.StateFinished, Substate: model.SubFinished, RunCount: 1, SessionID: 77}
	deleted := &model.Job{ID: "1.s", State: model.StateFinished, Substate: model.SubTerminated, RunCount: 1}
	for _, c := range []struct {
		what     string
		old, new *model.Job
		want     bool
	}{
		{"started alone", old, running, true},
		{"started and ended in one batch", old, finished, true},
		{"deleted before the report (report dropped)", old, deleted, false},
		{"a repeated report", running, running, false},
	} {
		if got := startTookEffect(c.old, c.new, ev); got != c.want {
			t.Errorf("%s: begin mail %v, want %v", c.what, got, c.want)
		}
	}
}
