package shepherd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// auxDirName is the directory, in the agent's tmpdir, of the files a job
// reads as its owner but must not change: its node file (PBS_NODEFILE,
// named <jobid> as in PBS's PBS_HOME/aux) and its script (<jobid>.SC).
// The spool is private to the agent, so they cannot live there. The
// directory belongs to the shepherd's user (root) and is 0711: nobody
// lists it, nobody else creates, replaces or removes anything in it, and
// each file belongs to the job's owner, read-only. All jobs share it: a
// directory made and removed for each job cost the file system two more
// inode operations per job, a large part of a short job's cost on a busy
// host.
const auxDirName = "pbs.aux"

// auxDir returns the shared aux directory, creating it when missing.
// Anything else at its path (a user's directory or symlink planted in the
// sticky tmpdir, or a directory others may write) is removed first;
// RemoveAll does not follow symlinks. In a sticky tmpdir nobody but its
// owner can remove or rename the directory once it is there.
func (r *jobRunner) auxDir() (string, error) {
	path := filepath.Join(r.params.TmpDir, auxDirName)
	for range 3 {
		st, err := os.Lstat(path)
		switch {
		case err == nil && ownDir(st):
			// Mkdir's mode passed through the umask, and another
			// shepherd may be between its Mkdir and this Chmod: both
			// set the same mode.
			if st.Mode().Perm() != 0o711 {
				if err := os.Chmod(path, 0o711); err != nil {
					return "", fmt.Errorf("job aux directory mode: %w", err)
				}
			}
			return path, nil
		case err == nil:
			if err := os.RemoveAll(path); err != nil {
				return "", fmt.Errorf("clear %s: %w", path, err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("job aux directory: %w", err)
		}
		// Another shepherd may create it first: then it is checked above.
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("create job aux directory: %w", err)
		}
	}
	return "", fmt.Errorf("job aux directory %s keeps being replaced", path)
}

// ownDir tells whether st is a directory of this process's user that
// nobody else may write.
func ownDir(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && st.IsDir() && int(sys.Uid) == os.Geteuid() && st.Mode().Perm()&0o022 == 0
}

// writeUserFile writes a file of the aux directory that the job reads as
// its owner, and records it for removal at the end. A leftover of an
// earlier run of the job is replaced.
func (r *jobRunner) writeUserFile(path string, data []byte, perm os.FileMode) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	r.auxFiles = append(r.auxFiles, path)
	_, err = f.Write(data)
	if err == nil && r.asRoot {
		err = f.Chown(r.id.UID, r.id.GID)
	}
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
