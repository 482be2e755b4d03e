package shepherd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Keep_Files (qsub -k): "n" (the default) spools output on the execution
// host and delivers it when the job ends; "o" and "e" keep that stream in
// the user's home directory under its default name; "d" writes straight to
// the destination. Kept and direct streams are opened at their final path
// when the job starts and written as the job runs, so nothing is left to
// deliver at the end.

// direct reports whether the stream ('o' or 'e') is written in place
// rather than spooled.
func (r *jobRunner) direct(stream byte) bool {
	k := r.job.Keep
	return strings.IndexByte(k, 'd') >= 0 || strings.IndexByte(k, stream) >= 0
}

// openDirect opens a kept or direct output file at its final path, with the
// user's permissions: a root shepherd must not let a job write where its
// owner could not.
func (r *jobRunner) openDirect(t outputTarget) (*os.File, error) {
	open := func() (*os.File, error) {
		dst := t.dest
		if st, err := os.Stat(dst); err == nil && st.IsDir() {
			dst = filepath.Join(dst, r.job.ID+"."+t.suffix)
		}
		// 0666 less the job's umask, as the job would create it.
		var f *os.File
		err := withUmask(r.job.JobUmask(), func() (err error) {
			f, err = os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o666)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("open output file: %w", err)
		}
		return f, nil
	}
	if !r.asRoot {
		return open()
	}
	if t.dest == os.DevNull {
		if f := openDevNull(); f != nil {
			return f, nil
		}
	}
	return asUser(r.id, open)
}

// openDevNull opens /dev/null for writing when it is the null device, as
// root: what the user's identity guards against (a path leading a root
// shepherd onto another file) cannot happen to a root-owned device node,
// and asUser costs a thread made and thrown away per stream, in every job
// that discards its output. nil: not the null device (use asUser).
func openDevNull() *os.File {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != unix.Mkdev(1, 3) {
		f.Close()
		return nil
	}
	return f
}

// asUser runs fn on an OS thread whose file-system identity (fsuid, fsgid,
// supplementary groups) is the user's, so path lookups and file creation
// are checked and owned as the user. The thread is never unlocked: it ends
// with the goroutine instead of going back to the runtime with the user's
// identity.
func asUser(id Identity, fn func() (*os.File, error)) (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		// No UnlockOSThread: the thread is discarded when this returns.
		groups := []int{id.GID}
		for _, g := range id.Groups {
			if int(g) != id.GID {
				groups = append(groups, int(g))
			}
		}
		if err := unix.Setgroups(groups); err != nil {
			ch <- result{err: fmt.Errorf("set groups: %w", err)}
			return
		}
		unix.Setfsgid(id.GID)
		unix.Setfsuid(id.UID)
		// setfsuid reports no failure; ask for the current values back.
		if u, _ := unix.SetfsuidRetUid(-1); u != id.UID {
			ch <- result{err: fmt.Errorf("cannot switch to uid %d", id.UID)}
			return
		}
		if g, _ := unix.SetfsgidRetGid(-1); g != id.GID {
			ch <- result{err: fmt.Errorf("cannot switch to gid %d", id.GID)}
			return
		}
		f, err := fn()
		ch <- result{f, err}
	}()
	res := <-ch
	return res.f, res.err
}
