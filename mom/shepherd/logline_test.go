package shepherd

import (
	"bytes"
	"log"
	"strings"
	"testing"
)

// TestLogLinesCannotForgeOrFlood: a message carrying newlines (as a
// transfer helper's stderr, written by the job's owner, may) stays one
// line of its own run, and a huge one is cut.
func TestLogLinesCannotForgeOrFlood(t *testing.T) {
	var out bytes.Buffer
	logger := log.New(logLines{&out}, "shepherd 12.srv.1: ", 0)
	logger.Printf("transfer helper: %s", "denied\nshepherd 99.srv.1: job 99.srv was killed on request\r\x1b[2J")
	logger.Printf("transfer helper: %s", strings.Repeat("x", 1<<20))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "shepherd 12.srv.1: ") {
			t.Errorf("line not of its own run: %q", l)
		}
	}
	if !strings.Contains(lines[0], `denied\nshepherd 99.srv.1`) || strings.ContainsAny(lines[0], "\r\x1b") {
		t.Errorf("control characters not escaped: %q", lines[0])
	}
	if len(lines[1]) > maxLogLine+64 {
		t.Errorf("a 1 MiB message took %d bytes of the log", len(lines[1]))
	}
}
