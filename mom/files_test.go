package mom

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOutputFilesUseJobUmask: output files are created 0666 less the job's
// umask (default 077, as PBS) and the script runs with that umask.
func TestOutputFilesUseJobUmask(t *testing.T) {
	for _, tc := range []struct {
		umask     string
		wantUmask string
		wantMode  fs.FileMode
	}{
		{"", "0077", 0o600},
		{"22", "0022", 0o644},
	} {
		out := worldDir(t, 0o777)
		j := testJob("30.srv", "umask\n", out)
		j.SetUmask(tc.umask)
		res := runShepherd(t, t.TempDir(), j, time.Second)
		if res.Exit != 0 {
			t.Fatalf("umask %q: result %+v", tc.umask, res)
		}
		for _, name := range []string{"t.o30", "t.e30"} {
			st, err := os.Stat(filepath.Join(out, name))
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tc.wantMode {
				t.Errorf("umask %q: %s mode %o, want %o", tc.umask, name, st.Mode().Perm(), tc.wantMode)
			}
		}
		if got := strings.TrimSpace(readFile(t, filepath.Join(out, "t.o30"))); got != tc.wantUmask {
			t.Errorf("umask %q: the script ran with umask %s, want %s", tc.umask, got, tc.wantUmask)
		}
	}
}

// TestSpoolIsPrivate: every spool directory is 0700 and every file 0600
// (issue 9: spool records were readable by every local user).
func TestSpoolIsPrivate(t *testing.T) {
	spoolDir := t.TempDir()
	// An older agent left wider modes behind.
	os.MkdirAll(filepath.Join(spoolDir, "jobs"), 0o711)
	os.Chmod(filepath.Join(spoolDir, "jobs"), 0o711)
	out := worldDir(t, 0o777)
	j := testJob("31.srv", "echo hi\nexit 3\n", out)
	j.Output = "testhost:/nonexistent-dir/t.o31" // leaves an undelivered file
	res := runShepherd(t, spoolDir, j, time.Second)
	if res.Exit != 3 {
		t.Fatalf("result %+v", res)
	}
	n := 0
	err := filepath.WalkDir(spoolDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n++
		switch {
		case st.IsDir() && st.Mode().Perm() != 0o700:
			t.Errorf("directory %s has mode %o, want 700", p, st.Mode().Perm())
		case st.Mode().IsRegular() && st.Mode().Perm()&0o077 != 0:
			t.Errorf("file %s has mode %o, want no access for group and others", p, st.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 6 {
		t.Errorf("walked only %d spool entries", n)
	}
}
