package server

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// TestEventLogFileFormatMaskAndReplay: lines in PBS's format, in the file
// of the event's day; log_events filters by class; entries replayed after
// a restart (indexes already written) are not written twice.
func TestEventLogFileFormatMaskAndReplay(t *testing.T) {
	dir := t.TempDir()
	mask := model.DefaultLogEvents
	open := func() *eventLog {
		l, err := openEventLog(dir, "srv1", func() int { return mask }, log.New(io.Discard, "", 0))
		if err != nil {
			t.Fatal(err)
		}
		l.loc = time.UTC
		return l
	}
	at := time.Date(2026, 11, 26, 10, 15, 2, 0, time.UTC).Unix()
	l := open()
	batch := []model.LogEvent{
		{Index: 5, Time: at, Type: model.LogJob, Class: "Job", ID: "12.srv1", Msg: "Job Queued at request of alice@login1, owner = alice@login1, job name = x, queue = workq"},
		{Index: 6, Time: at, Type: model.LogDebug4, Class: "Node", ID: "n1", Msg: "too detailed"},
		{Index: 6, Time: at, Type: model.LogAdmin, Class: "Svr", ID: "server", Msg: "set server comment = a\nb"},
	}
	if err := l.write(batch); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, eventLogDir, "20261126")
	read := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := "11/26/2026 10:15:02;0x0008;Server@srv1;Job;12.srv1;Job Queued at request of alice@login1, owner = alice@login1, job name = x, queue = workq\n" +
		"11/26/2026 10:15:02;0x0004;Server@srv1;Svr;server;set server comment = a b\n"
	if got := read(); got != want {
		t.Fatalf("event log:\n%s\nwant:\n%s", got, want)
	}
	// A restart replays entries 5..7: only 7 is new. log_events 0 keeps nothing.
	l = open()
	if err := l.write(append(batch, model.LogEvent{Index: 7, Time: at, Type: model.LogJob, Class: "Job", ID: "13.srv1", Msg: "Job Run"})); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != want+"11/26/2026 10:15:02;0x0008;Server@srv1;Job;13.srv1;Job Run\n" {
		t.Fatalf("after replay:\n%s", got)
	}
	mask = 0
	l.write([]model.LogEvent{{Index: 8, Time: at, Type: model.LogJob, Class: "Job", ID: "14.srv1", Msg: "Job Queued"}})
	if strings.Contains(read(), "14.srv1") {
		t.Fatal("log_events 0 still logged a job event")
	}
	if !regexp.MustCompile(`^0*8\n$`).MatchString(string(must(os.ReadFile(filepath.Join(dir, eventLogDir, eventLogState))))) {
		t.Error("the written index does not move past filtered events")
	}
	// A record as an earlier release wrote it (no padding) is read, and
	// the next write replaces it whole.
	state := filepath.Join(dir, eventLogDir, eventLogState)
	if err := os.WriteFile(state, []byte("9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mask = model.DefaultLogEvents
	l = open()
	l.write([]model.LogEvent{{Index: 9, Time: at, Type: model.LogJob, Class: "Job", ID: "15.srv1", Msg: "Job Queued"},
		{Index: 10, Time: at, Type: model.LogJob, Class: "Job", ID: "16.srv1", Msg: "Job Queued"}})
	if got := read(); strings.Contains(got, "15.srv1") || !strings.Contains(got, "16.srv1") {
		t.Errorf("after an old-format record of 9:\n%s", got)
	}
	if got := string(must(os.ReadFile(state))); got != "00000000000000000010\n" {
		t.Errorf("record %q, want 10 in fixed width", got)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
