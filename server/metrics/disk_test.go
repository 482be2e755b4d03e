package metrics

import (
	"os"
	"path/filepath"
	"testing"
)

// The latest snapshot is the one with the highest index, not the last
// name in lexical order; one still being written (.tmp) is not counted.
func TestLatestSnapshotSize(t *testing.T) {
	dir := t.TempDir()
	if _, ok := latestSnapshotSize(dir); ok {
		t.Fatal("a size before any snapshot")
	}
	for name, size := range map[string]int{"2-900-1000": 9, "2-1000-2000": 10, "3-2000-3000.tmp": 99, "junk": 5} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "state.bin"), make([]byte, size), 0o644)
	}
	if n, ok := latestSnapshotSize(dir); !ok || n != 10 {
		t.Errorf("latest snapshot size %d %v, want 10 (index 1000)", n, ok)
	}
}
