package mom

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirWatch turns file changes in a job's spool directory into wakeups, so
// the agent reports a start or an end as soon as the shepherd writes it
// rather than at the next poll. The shepherd writes its files by rename,
// which inotify reports as IN_MOVED_TO.
type dirWatch struct {
	f    *os.File
	wake chan struct{}
}

// newDirWatch watches dir; it returns nil when inotify is unavailable, and
// the caller falls back to polling.
func newDirWatch(dir string) *dirWatch {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	if _, err := unix.InotifyAddWatch(fd, dir, unix.IN_MOVED_TO|unix.IN_CLOSE_WRITE|unix.IN_CREATE); err != nil {
		unix.Close(fd)
		return nil
	}
	// A non-blocking fd goes to Go's poller, so Close unblocks the reader.
	w := &dirWatch{f: os.NewFile(uintptr(fd), "inotify:"+dir), wake: make(chan struct{}, 1)}
	go w.read()
	return w
}

func (w *dirWatch) read() {
	buf := make([]byte, 4096)
	for {
		if _, err := w.f.Read(buf); err != nil {
			return
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
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
