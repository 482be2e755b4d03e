package mom

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// The transfer helper ("mom-shepherd transfer") copies a job's files --
// output delivery, stage-in, stage-out, removal of staged-in files -- as
// the job's owner. The shepherd (root) starts it with the owner's uid,
// gid, groups and the job's umask; the request comes on stdin, spooled
// output files the shepherd opened come as extra descriptors, and one
// result per item goes to stdout. Everything the helper touches, here or
// on another host, it touches with the owner's rights: a job cannot make
// the batch system read or write a file its owner could not.

// transferMain is the helper's entry point.
func transferMain(in io.Reader, out io.Writer) int {
	var req transferRequest
	if err := json.NewDecoder(io.LimitReader(in, maxTransferRequest)).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "transfer: bad request: %v\n", err)
		return 2
	}
	req.Config.SSH = withSSHDefaults(req.Config.SSH)
	// The owner is who this process is, whatever the request says.
	req.User.UID = os.Getuid()
	t := &transferer{req: req, hosts: map[string]*remoteHost{}}
	defer t.close()
	results := make([]transferResult, len(req.Items))
	for i, it := range req.Items {
		files, err := t.do(it)
		results[i].Files = files
		if err != nil {
			results[i].Err = err.Error()
		}
	}
	if err := json.NewEncoder(out).Encode(results); err != nil {
		fmt.Fprintf(os.Stderr, "transfer: write results: %v\n", err)
		return 1
	}
	return 0
}

// withSSHDefaults fills what a launch record of an older agent (or a
// test) left empty.
func withSSHDefaults(c SSHConfig) SSHConfig {
	d := defaultTransferConfig().SSH
	if c.Port == 0 {
		c.Port = d.Port
	}
	if c.IdentityFiles == nil {
		c.IdentityFiles = d.IdentityFiles
	}
	if c.UserKnownHosts == nil {
		c.UserKnownHosts = d.UserKnownHosts
	}
	if c.GlobalKnownHosts == nil {
		c.GlobalKnownHosts = d.GlobalKnownHosts
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = d.ConnectTimeout
	}
	return c
}

// transferer holds the connections of one helper run, one per host.
type transferer struct {
	req   transferRequest
	hosts map[string]*remoteHost
}

type remoteHost struct {
	ssh  *ssh.Client
	sftp *sftp.Client
	err  error // a failed connection is not retried for every item
}

func (t *transferer) close() {
	for _, h := range t.hosts {
		if h.sftp != nil {
			h.sftp.Close()
		}
		if h.ssh != nil {
			h.ssh.Close()
		}
	}
}

// fsFor returns the file system holding host:p and the path on it.
func (t *transferer) fsFor(host, p string) (fileSystem, string, error) {
	local, ok, err := t.req.Config.Route(host, p)
	if err != nil {
		return nil, "", err
	}
	if ok {
		return localFS{}, local, nil
	}
	h := t.hosts[host]
	if h == nil {
		h = &remoteHost{}
		t.hosts[host] = h
		d := &sshDialer{cfg: t.req.Config.SSH, user: t.req.User}
		if h.ssh, h.err = d.dial(host); h.err == nil {
			if h.sftp, h.err = sftp.NewClient(h.ssh); h.err != nil {
				h.err = fmt.Errorf("sftp on %s: %w", host, h.err)
			}
		}
	}
	if h.err != nil {
		return nil, "", h.err
	}
	// "~/x" is x in the home directory, where SFTP starts.
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = rest
	}
	return sftpFS{c: h.sftp, umask: t.req.Umask}, p, nil
}

// localPath makes an execution path absolute: relative paths are in the
// owner's home directory, the job's directory.
func (t *transferer) localPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.req.User.Home, p)
}

func (t *transferer) do(it transferItem) ([]string, error) {
	switch it.Op {
	case opDeliver:
		return nil, t.deliver(it)
	case opIn:
		dst := t.localPath(it.Local)
		src, sp, err := t.fsFor(it.Host, it.Remote)
		if err != nil {
			return nil, err
		}
		written, err := copyPath(src, sp, localFS{}, dst)
		if err != nil {
			return nil, err // the shepherd names the copy (PBS's wording)
		}
		return []string{written}, nil
	case opOut:
		return nil, t.stageOut(it)
	case opRemove:
		return nil, os.RemoveAll(t.localPath(it.Local))
	}
	return nil, fmt.Errorf("unknown transfer operation %q", it.Op)
}

// deliver copies a spooled output file to its destination; a directory
// destination receives it under NameInDir (<jobid>.OU).
func (t *transferer) deliver(it transferItem) error {
	f := os.NewFile(uintptr(3+it.FD), "spooled output")
	if f == nil {
		return fmt.Errorf("no spooled output descriptor %d", it.FD)
	}
	defer f.Close()
	dst, dp, err := t.fsFor(it.Host, it.Remote)
	if err != nil {
		return err
	}
	if st, err := dst.Stat(dp); err == nil && st.IsDir() {
		dp = filepath.Join(dp, it.NameInDir)
	}
	return copyInto(dst, dp, f)
}

// stageOut copies each file the execution path names to the storage
// path and removes it here once copied, as PBS does. A wildcard that
// matches nothing copies nothing.
func (t *transferer) stageOut(it transferItem) error {
	srcs, err := globLocal(t.localPath(it.Local))
	if err != nil {
		return err
	}
	if len(srcs) == 0 {
		return nil
	}
	dst, dp, err := t.fsFor(it.Host, it.Remote)
	if err != nil {
		return err
	}
	var failed []string
	for _, s := range srcs {
		if _, err := copyPath(localFS{}, s, dst, dp); err != nil {
			failed = append(failed, fmt.Sprintf("cannot copy %s to %s:%s: %v", s, it.Host, it.Remote, err))
			continue
		}
		if err := os.RemoveAll(s); err != nil {
			failed = append(failed, fmt.Sprintf("copied %s but cannot remove it: %v", s, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return nil
}
