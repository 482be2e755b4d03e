//go:build e2e

package main

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPBSCommandsBinary: the command links run strata-pbs, a static binary
// (no dynamic loader), and the three ways of running a command (the link,
// `strata-pbs qsub`, `strata qsub`) are the same command: an unprivileged
// user's submission is theirs (the server takes the identity from the
// socket), and a failure prints the same PBS message and exit status.
func TestPBSCommandsBinary(t *testing.T) {
	if target, err := os.Readlink(filepath.Join(binDir, "qsub")); err != nil || target != "strata-pbs" {
		t.Fatalf("qsub -> %q (%v), want strata-pbs", target, err)
	}
	f, err := elf.Open(filepath.Join(binDir, "strata-pbs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("strata-pbs is dynamically linked (it has a PT_INTERP program header)")
		}
	}
	f.Close()

	c := startCluster(t, 1, 1)
	forms := [][]string{{"qsub"}, {"strata-pbs", "qsub"}, {"strata", "qsub"}}
	for _, form := range forms {
		r := c.runAs(nobody, "", form[0], append(form[1:], "-h", "-N", "forms", "--", "/bin/true")...)
		id := strings.TrimSpace(r.stdout)
		if r.code != 0 || !strings.HasSuffix(id, ".e2e") {
			t.Fatalf("%v as nobody: exit %d, %q %q", form, r.code, r.stdout, r.stderr)
		}
		if owner := str(c.job(id)["Job_Owner"]); !strings.HasPrefix(owner, "nobody@") {
			t.Errorf("%v: Job_Owner %q, want nobody@...", form, owner)
		}
	}

	var first result
	for i, form := range [][]string{{"qdel"}, {"strata-pbs", "qdel"}, {"strata", "qdel"}} {
		r := c.run(form[0], append(form[1:], "999999.e2e")...)
		if i == 0 {
			first = r
			if r.code == 0 || !strings.HasPrefix(r.stderr, "qdel: ") {
				t.Fatalf("qdel of an unknown job: exit %d, stderr %q", r.code, r.stderr)
			}
			continue
		}
		if r != first {
			t.Errorf("%v: %+v, the link gave %+v", form, r, first)
		}
	}
	// A link named like a command that points to strata itself (an
	// installation from before strata-pbs) still runs that command.
	old := filepath.Join(t.TempDir(), "qdel")
	if err := os.Symlink(filepath.Join(binDir, "strata"), old); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(old, "999999.e2e")
	cmd.Env, cmd.Dir = c.env, c.work
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != first.code || stderr.String() != first.stderr || stdout.String() != first.stdout {
		t.Errorf("qdel -> strata: %v, stdout %q, stderr %q; the strata-pbs link gave %+v", err, stdout.String(), stderr.String(), first)
	}
}
