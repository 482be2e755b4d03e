package mom

import (
	"bytes"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirWatch turns file changes in a job's spool directory into wakeups, so
// the agent reports a start or an end as soon as the shepherd writes it
// rather than at the next poll. The shepherd writes its files by rename,
// which inotify reports as IN_MOVED_TO.
type dirWatch struct {
	f    *os.File
	wake chan struct{}
	// names are the files whose changes wake the watcher (none: all).
	mu    sync.Mutex
	names []string
}

// newDirWatch watches dir; it returns nil when inotify is unavailable, and
// the caller falls back to polling. Only changes to the named files wake
// it: a job's start and end also write temporary files, usage samples and
// logs, and each wake-up costs the watcher a look at its records.
func newDirWatch(dir string, names ...string) *dirWatch {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO|unix.IN_CLOSE_WRITE|unix.IN_CREATE); err != nil {
		unix.Close(fd)
		return nil
	}
	// A non-blocking fd goes to Go's poller, so Close unblocks the reader.
	w := &dirWatch{f: os.NewFile(uintptr(fd), "inotify:"+dir), wake: make(chan struct{}, 1), names: names}
	go w.read()
	return w
}

func (w *dirWatch) read() {
	buf := make([]byte, 4096)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return
		}
		if !w.wanted(buf[:n]) {
			continue
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// add makes changes to one more file wake the watcher.
func (w *dirWatch) add(name string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.names) > 0 {
		w.names = append(w.names, name)
	}
}

// wanted tells whether a read of inotify events names a watched file (or
// cannot be parsed, or overflowed: then it wakes to be safe).
func (w *dirWatch) wanted(b []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.names) == 0 {
		return true
	}
	for len(b) >= unix.SizeofInotifyEvent {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		end := unix.SizeofInotifyEvent + int(ev.Len)
		if ev.Mask&unix.IN_Q_OVERFLOW != 0 || end > len(b) {
			return true
		}
		name := b[unix.SizeofInotifyEvent:end]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		for _, want := range w.names {
			if string(name) == want {
				return true
			}
		}
		b = b[end:]
	}
	return len(b) != 0
}

// C receives a value after changes in the directory (nil without inotify,
// which blocks forever in a select).
func (w *dirWatch) C() <-chan struct{} {
	if w == nil {
		return nil
	}
	return w.wake
}

func (w *dirWatch) Close() {
	if w != nil {
		w.f.Close()
	}
}
