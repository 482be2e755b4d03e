package benchcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimSections: each run size replaces only its own section, and a
// report rewritten by strata bench keeps both.
func TestSimSections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "performance.md")
	os.WriteFile(path, []byte("# Performance\n\nfigures\n"), 0o644)
	section := func(name, body string) string {
		b, e := sectionMarks(name)
		return b + "\n" + body + "\n" + e + "\n"
	}
	for _, w := range []struct{ name, body string }{
		{"bench-sim", "short 1"}, {"bench-sim-full", "full 1"}, {"bench-sim", "short 2"},
	} {
		if err := writeSection(path, w.name, section(w.name, w.body)); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if !strings.HasPrefix(got, "# Performance\n\nfigures\n") || strings.Contains(got, "short 1") ||
		!strings.Contains(got, "short 2") || !strings.Contains(got, "full 1") || strings.Count(got, "begin -->") != 2 {
		t.Fatalf("report after three runs:\n%s", got)
	}
	kept := keepSimSections(got, "# Performance\n\nnew figures\n")
	if !strings.Contains(kept, "new figures") || !strings.Contains(kept, "short 2") || !strings.Contains(kept, "full 1") {
		t.Fatalf("rewritten report:\n%s", kept)
	}
}
