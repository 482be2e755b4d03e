package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/cmd/pbscmd"
)

// runOut runs the binary's entry point with args and returns its stdout.
func runOut(t *testing.T, args ...string) (string, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	code := pbscmd.Main(args)
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	return string(out), code
}

// TestDispatch: a link named like a command runs that command, and
// "strata-pbs COMMAND" runs it too, as "strata COMMAND" does; an unknown
// command is a usage error.
func TestDispatch(t *testing.T) {
	for _, args := range [][]string{
		{"/usr/local/bin/qstat", "--version"},
		{"pbs_rstat", "--version"},
		{"strata-pbs", "qsub", "--version"},
	} {
		out, code := runOut(t, args...)
		if code != 0 || !strings.HasPrefix(out, "pbs_version = ") {
			t.Errorf("%q: exit %d, printed %q", args, code, out)
		}
	}
	if _, code := runOut(t, "strata-pbs", "qnope"); code != 2 {
		t.Errorf("strata-pbs qnope: exit %d, want 2", code)
	}
	out, code := runOut(t, "strata-pbs", "--help")
	if code != 0 {
		t.Fatalf("strata-pbs --help exited %d", code)
	}
	for _, name := range []string{"qsub", "qstat", "qmgr", "pbs_rsub", "pbsfs"} {
		if !strings.Contains(out, "\n   "+name+" ") {
			t.Errorf("strata-pbs --help does not list %s:\n%s", name, out)
		}
	}
}
