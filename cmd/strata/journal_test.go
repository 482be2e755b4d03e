package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestJournalStreamIsRecognisedByDeviceAndInode(t *testing.T) {
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, "a"))
	g, _ := os.Create(filepath.Join(dir, "b"))
	defer f.Close()
	defer g.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	env := fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	if !isJournalStream(f, env) {
		t.Errorf("%s is the stream %s but was not recognised", f.Name(), env)
	}
	// Inherited JOURNAL_STREAM with stderr redirected elsewhere: plain logs.
	if isJournalStream(g, env) || isJournalStream(f, "") {
		t.Error("another file, or no JOURNAL_STREAM, taken for the journal")
	}
}

func TestJournalLinesCarryPriorityAndNoTimestamp(t *testing.T) {
	var out bytes.Buffer
	l := log.New(&journalWriter{w: &out}, "", 0)
	l.Printf("server s1: api on /run/strata/strata.sock")
	l.Writer().Write([]byte("2026-11-26T19:40:01.123Z [WARN]  raft: heartbeat timeout reached\n" +
		"2026-11-26T19:40:01.124+0100 [ERROR] raft: failed to contact\n[DEBUG] raft: x\ntwo\nlines\n"))
	want := "<6>server s1: api on /run/strata/strata.sock\n" +
		"<4>[WARN]  raft: heartbeat timeout reached\n<3>[ERROR] raft: failed to contact\n<7>[DEBUG] raft: x\n<6>two\n<6>lines\n"
	if out.String() != want {
		t.Errorf("journal lines:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestJournalForgedPriorityStaysInfo performs the attack of a user whose
// text reaches the log (a job name, a hook message): a newline followed
// by "<0>" would be an emergency if it started a journal line. Every line
// gets its own prefix first, so the forged one is read as text of an info
// line.
func TestJournalForgedPriorityStaysInfo(t *testing.T) {
	var out bytes.Buffer
	l := log.New(&journalWriter{w: &out}, "", 0)
	l.Printf("job name %s", "x\n<0>system is on fire")
	if want := "<6>job name x\n<6><0>system is on fire\n"; out.String() != want {
		t.Errorf("journal lines %q, want %q", out.String(), want)
	}
}
