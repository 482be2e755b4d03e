package mom

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// TestStartedReportWaitsOnlyForCompany: a batch of started reports waits
// up to startedHold for another report (a short job's end then travels
// with its start); any other report is sent at once and takes the held
// ones with it, and a started report is never held longer than that.
func TestStartedReportWaitsOnlyForCompany(t *testing.T) {
	a := &Agent{kickEvents: make(chan struct{}, 1)}
	if d := a.holdLocked(); d != 0 {
		t.Fatalf("hold with nothing pending = %v", d)
	}
	a.queueLocked("1.s/1", api.JobEvent{JobID: "1.s", Kind: api.EventStarted, Run: 1})
	if d := a.holdLocked(); d <= 0 || d > startedHold {
		t.Fatalf("hold of a lone started report = %v, want (0, %v]", d, startedHold)
	}
	a.queueLocked("2.s/1", api.JobEvent{JobID: "2.s", Kind: api.EventStarted, Run: 1})
	if d := a.holdLocked(); d <= 0 {
		t.Fatalf("two started reports are not held (%v)", d)
	}
	a.queueLocked("1.s/1", api.JobEvent{JobID: "1.s", Kind: api.EventEnded, Run: 1})
	if d := a.holdLocked(); d != 0 {
		t.Fatalf("an ended report waits %v", d)
	}
	b := &Agent{kickEvents: make(chan struct{}, 1)}
	b.pending = []pendingEvent{{key: "3.s/1", ev: api.JobEvent{JobID: "3.s", Kind: api.EventStarted}, at: time.Now().Add(-startedHold)}}
	if d := b.holdLocked(); d > 0 {
		t.Fatalf("a started report queued %v ago is still held (%v)", startedHold, d)
	}
	for _, k := range []string{api.EventFailed, api.EventUsage, api.EventStageinFailed} {
		c := &Agent{kickEvents: make(chan struct{}, 1)}
		c.queueLocked("4.s/1", api.JobEvent{JobID: "4.s", Kind: k})
		if d := c.holdLocked(); d != 0 {
			t.Errorf("a %s report waits %v", k, d)
		}
	}
}
