package mom

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDirWatchWakesForNamedFilesOnly: a job's start and end write
// temporary files and usage samples next to the records the watcher
// reads; only the named records wake it, written by rename as the
// shepherd writes them.
func TestDirWatchWakesForNamedFilesOnly(t *testing.T) {
	dir := t.TempDir()
	w := newDirWatch(dir, fileResult)
	if w == nil {
		t.Skip("inotify unavailable")
	}
	defer w.Close()
	// Unrelated writes first, then the record: the wake-up must come,
	// and after it was taken no second one may be queued by the
	// unrelated writes (they were read before the record's event).
	for _, name := range []string{"usage.json", ".result.json.123", "shepherd.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeJSONRun(filepath.Join(dir, fileResult), Result{Exit: 3}, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.C():
	case <-time.After(10 * time.Second):
		t.Fatal("no wake-up for the watched record")
	}
	select {
	case <-w.C():
		t.Error("the unrelated writes queued a second wake-up")
	default:
	}
	// Parsing: an event for another name does not wake, one for the
	// watched name (NUL-padded as the kernel writes it) does.
	if w.wanted(inotifyEvent("usage.json")) {
		t.Error("an event for usage.json woke the watcher")
	}
	if !w.wanted(append(inotifyEvent("usage.json"), inotifyEvent(fileResult)...)) {
		t.Error("an event for result.json after another did not wake the watcher")
	}
	if !w.wanted([]byte{1, 2, 3}) {
		t.Error("a torn read did not wake the watcher (it must, to be safe)")
	}
}

// inotifyEvent is one event record as read(2) returns it.
func inotifyEvent(name string) []byte {
	n := (len(name) + 1 + 15) / 16 * 16
	b := make([]byte, 16+n)
	b[12] = byte(n) // len, little-endian uint32
	copy(b[16:], name)
	return b
}
