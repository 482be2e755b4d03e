//go:build e2e

package main

// File modes (issue 9, item 10): the local cluster's TMPDIR parent is
// sticky, output files get the job's umask (-W umask, default 077 as PBS),
// and the agent's spool is private.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileModes(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to submit as nobody")
	}
	c := startCluster(t, 1, 2)

	t.Run("tmpdir sticky", func(t *testing.T) {
		// Without the sticky bit any user could remove or replace another
		// job's TMPDIR in this world-writable directory.
		st, err := os.Stat(filepath.Join(c.dir, "node1", "tmp"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode()&fs.ModeSticky == 0 || st.Mode().Perm() != 0o777 {
			t.Errorf("node1/tmp mode %v, want drwxrwxrwt", st.Mode())
		}
	})

	submit := func(t *testing.T, name string, args ...string) (string, result) {
		script := filepath.Join(c.work, name+".sh")
		os.WriteFile(script, []byte("umask\n"), 0o644)
		r := c.runAs(nobody, "", "qsub", append(append([]string{"-S", "/bin/sh", "-N", name}, args...), script)...)
		return strings.TrimSpace(r.stdout), r
	}
	for _, tc := range []struct {
		name, umask, attr, shellUmask string
		mode                          fs.FileMode
	}{
		{"dflt", "", "", "0077", 0o600},
		{"u022", "022", "22", "0022", 0o644},
		{"u027", "0027", "27", "0027", 0o640},
	} {
		t.Run("umask "+tc.name, func(t *testing.T) {
			var args []string
			if tc.umask != "" {
				args = []string{"-W", "umask=" + tc.umask}
			}
			id, r := submit(t, tc.name, args...)
			if r.code != 0 {
				t.Fatalf("qsub: exit %d: %s", r.code, r.stderr)
			}
			j := c.waitState(id, 30*time.Second, "F")
			if got := str(j["umask"]); got != tc.attr {
				t.Errorf("qstat umask = %q, want %q", got, tc.attr)
			}
			seq, _, _ := strings.Cut(id, ".")
			for _, f := range []string{tc.name + ".o" + seq, tc.name + ".e" + seq} {
				st, err := os.Stat(filepath.Join(c.work, f))
				if err != nil {
					t.Fatal(err)
				}
				if st.Mode().Perm() != tc.mode {
					t.Errorf("%s mode %o, want %o", f, st.Mode().Perm(), tc.mode)
				}
			}
			out, _ := os.ReadFile(filepath.Join(c.work, tc.name+".o"+seq))
			if strings.TrimSpace(string(out)) != tc.shellUmask {
				t.Errorf("the job ran with umask %q, want %s", out, tc.shellUmask)
			}
		})
	}

	t.Run("bad umask", func(t *testing.T) {
		for _, v := range []string{"999", "1000", "abc", "-1", "8"} {
			_, r := submit(t, "bad", "-W", "umask="+v)
			if r.code != 166 || r.stderr != "qsub: Illegal attribute or resource value umask\n" {
				t.Errorf("-W umask=%s: exit %d, stderr %q", v, r.code, r.stderr)
			}
		}
	})

	t.Run("spool private", func(t *testing.T) {
		spoolDir := filepath.Join(c.dir, "node1", "spool")
		filepath.WalkDir(spoolDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			st, err := os.Lstat(p)
			if err != nil {
				return nil
			}
			if st.IsDir() && st.Mode().Perm() != 0o700 {
				t.Errorf("spool directory %s mode %o, want 700", p, st.Mode().Perm())
			}
			if st.Mode().IsRegular() && st.Mode().Perm()&0o077 != 0 {
				t.Errorf("spool file %s mode %o, want 600", p, st.Mode().Perm())
			}
			return nil
		})
	})
}
