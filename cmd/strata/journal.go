package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"os"
	"regexp"
	"sync"

	"golang.org/x/sys/unix"
)

// Under systemd a daemon's stderr is a stream to the journal, which stamps
// every line itself and reads a leading "<N>" as the line's syslog
// priority (sd-daemon(3)). The server and the agent then log without
// timestamps and with priorities.

// stderrIsJournal reports whether stderr is the journal stream systemd
// announced in JOURNAL_STREAM ("device:inode"): a daemon whose stderr was
// redirected elsewhere (a file, a terminal) keeps the plain format.
func stderrIsJournal() bool {
	return isJournalStream(os.Stderr, os.Getenv("JOURNAL_STREAM"))
}

// isJournalStream reports whether f is the stream JOURNAL_STREAM names.
func isJournalStream(f *os.File, want string) bool {
	if want == "" {
		return false
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return false
	}
	return want == fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}

// daemonLogger is the logger of a daemon writing to stderr: plain with
// timestamps, or journal lines.
func daemonLogger() *log.Logger {
	if stderrIsJournal() {
		return log.New(&journalWriter{w: os.Stderr}, "", 0)
	}
	return log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
}

// Syslog priorities (sd-daemon.h).
const (
	prioErr     = 3
	prioWarning = 4
	prioInfo    = 6
	prioDebug   = 7
)

// hclogStamp is the timestamp Raft's logger (hclog) puts before its level;
// the journal has its own.
var hclogStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT[0-9:.]+[-+Z0-9:]*\s+`)

// journalWriter prefixes every line with its priority: Raft's hclog lines
// by their level tag, everything else as info.
type journalWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (j *journalWriter) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		line = hclogStamp.ReplaceAll(line, nil)
		fmt.Fprintf(&out, "<%d>", linePriority(line))
		out.Write(line)
	}
	if _, err := j.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func linePriority(line []byte) int {
	switch {
	case bytes.HasPrefix(line, []byte("[ERROR]")):
		return prioErr
	case bytes.HasPrefix(line, []byte("[WARN]")):
		return prioWarning
	case bytes.HasPrefix(line, []byte("[DEBUG]")), bytes.HasPrefix(line, []byte("[TRACE]")):
		return prioDebug
	}
	return prioInfo
}
