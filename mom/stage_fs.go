package mom

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/pkg/sftp"
)

// fileSystem is one side of a copy: this host's files (as the job owner,
// since the transfer helper runs as the owner) or another host's through
// SFTP (as the owner's SSH login there).
type fileSystem interface {
	Stat(p string) (fs.FileInfo, error)
	// ReadDir lists a directory without following symbolic links in it.
	ReadDir(p string) ([]fs.FileInfo, error)
	Open(p string) (io.ReadCloser, error)
	// Create creates or truncates a file; a new file gets 0666 less the
	// job's umask.
	Create(p string) (io.WriteCloser, error)
	// Mkdir creates a directory (0777 less the umask); an existing
	// directory is fine.
	Mkdir(p string) error
	RemoveAll(p string) error
}

// localFS is this host. The helper's process umask is the job's.
type localFS struct{}

func (localFS) Stat(p string) (fs.FileInfo, error)   { return os.Stat(p) }
func (localFS) Open(p string) (io.ReadCloser, error) { return os.Open(p) }
func (localFS) RemoveAll(p string) error             { return os.RemoveAll(p) }

func (localFS) ReadDir(p string) ([]fs.FileInfo, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			out = append(out, fi)
		}
	}
	return out, nil
}

func (localFS) Create(p string) (io.WriteCloser, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

func (localFS) Mkdir(p string) error {
	err := os.Mkdir(p, 0o777)
	if errors.Is(err, fs.ErrExist) {
		if st, serr := os.Stat(p); serr == nil && st.IsDir() {
			return nil
		}
	}
	return err
}

// sftpFS is another host through SFTP. Relative paths are relative to
// the owner's home there (the SFTP server's starting directory).
type sftpFS struct {
	c     *sftp.Client
	umask int
}

func (s sftpFS) Stat(p string) (fs.FileInfo, error)      { return s.c.Stat(p) }
func (s sftpFS) ReadDir(p string) ([]fs.FileInfo, error) { return s.c.ReadDir(p) }
func (s sftpFS) Open(p string) (io.ReadCloser, error)    { return s.c.Open(p) }
func (s sftpFS) RemoveAll(p string) error                { return s.c.RemoveAll(p) }

func (s sftpFS) Create(p string) (io.WriteCloser, error) {
	_, statErr := s.c.Stat(p)
	f, err := s.c.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return nil, err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// The SFTP server applies its own umask; the job's decides.
		if err := f.Chmod(fs.FileMode(0o666 &^ s.umask)); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

func (s sftpFS) Mkdir(p string) error {
	if st, err := s.c.Stat(p); err == nil && st.IsDir() {
		return nil
	}
	if err := s.c.Mkdir(p); err != nil {
		return err
	}
	return s.c.Chmod(p, fs.FileMode(0o777&^s.umask))
}

// maxTreeDepth bounds a recursive copy.
const maxTreeDepth = 64

// copyPath copies the file or directory sp of src to dp of dst, as
// "cp -r sp dp" would: into dp when dp is an existing directory. It
// returns the path written on dst. Symbolic links inside a copied
// directory are skipped, so a link cannot drag in a tree the owner did
// not name (and a loop cannot recurse forever).
func copyPath(src fileSystem, sp string, dst fileSystem, dp string) (string, error) {
	st, err := src.Stat(sp)
	if err != nil {
		return "", err
	}
	if dt, err := dst.Stat(dp); err == nil && dt.IsDir() {
		dp = path.Join(dp, path.Base(sp))
	}
	return dp, copyEntry(src, sp, st, dst, dp, 0)
}

func copyEntry(src fileSystem, sp string, st fs.FileInfo, dst fileSystem, dp string, depth int) error {
	switch {
	case st.Mode().IsRegular():
		r, err := src.Open(sp)
		if err != nil {
			return err
		}
		defer r.Close()
		return copyInto(dst, dp, r)
	case st.IsDir():
		if depth > maxTreeDepth {
			return fmt.Errorf("%s: directories nested deeper than %d", sp, maxTreeDepth)
		}
		if err := dst.Mkdir(dp); err != nil {
			return err
		}
		ents, err := src.ReadDir(sp)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.Mode()&fs.ModeSymlink != 0 {
				continue
			}
			if err := copyEntry(src, path.Join(sp, e.Name()), e, dst, path.Join(dp, e.Name()), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s is not a regular file or directory", sp)
}

// copyInto writes r to dp on dst.
func copyInto(dst fileSystem, dp string, r io.Reader) error {
	w, err := dst.Create(dp)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", dp, err)
	}
	return nil
}

// globLocal expands a wildcard in the last element of p (PBS allows * and
// ? there in a stage-out); names starting with '.' are not matched, as
// PBS skips them. A path without a wildcard is returned as is.
func globLocal(p string) ([]string, error) {
	dir, pat := filepath.Split(p)
	if !hasWildcard(pat) {
		return []string{p}, nil
	}
	if hasWildcard(dir) {
		return nil, fmt.Errorf("%s: a wildcard is allowed in the last element only", p)
	}
	ents, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Name()[0] == '.' {
			continue
		}
		if ok, _ := filepath.Match(pat, e.Name()); ok {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

func hasWildcard(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '*' || s[i] == '?' {
			return true
		}
	}
	return false
}
