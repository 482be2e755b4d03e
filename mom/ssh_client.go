package mom

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// The SSH client of the transfer helper. It runs as the job's owner (the
// shepherd started it with the owner's uid, gid and groups), so every
// file it reads -- keys, known_hosts -- is read with the owner's
// permissions; on top of that it refuses, as OpenSSH does, a key that is
// not the owner's own private file. Nothing from the owner's ~/.ssh/config
// is used (no ProxyCommand, no per-host options): the host name comes from
// the job, is checked to be a plain name (model.ValidHostName), and is
// only ever an address to dial, never a command-line argument.
//
// An ssh-agent is not available: the job's owner is not logged in when
// the batch system copies files, so the key must be a file without a
// passphrase (or the path must be shared and mapped with usecp).

// maxKeyFile bounds what is read from a key or known_hosts file.
const maxKeyFile = 1 << 20

// sshDialer opens SSH connections for one user.
type sshDialer struct {
	cfg  SSHConfig
	user sshUser
	// notes explain keys that were skipped, for the error message when
	// no key worked.
	notes []string
}

// dial connects and authenticates to host, checking its key against the
// known_hosts files under the name host (with the port, "[host]:port",
// when it is not 22), whatever address it is reached at.
func (d *sshDialer) dial(host string) (*ssh.Client, error) {
	addr, port := d.address(host)
	// The callback wants host:port; messages show the known_hosts form.
	hostPort := net.JoinHostPort(host, port)
	keyName := knownhosts.Normalize(hostPort)
	hostKeys, algos, err := d.hostKeyCallback(hostPort, keyName)
	if err != nil {
		return nil, err
	}
	signers := d.signers()
	if len(signers) == 0 {
		return nil, fmt.Errorf("no usable SSH key for %s (%s); an ssh-agent is not available to batch jobs",
			d.user.Name, strings.Join(d.notes, "; "))
	}
	cc := &ssh.ClientConfig{
		User:              d.user.Name,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signers...)},
		HostKeyCallback:   hostKeys,
		HostKeyAlgorithms: algos,
		Timeout:           d.cfg.ConnectTimeout,
	}
	dialAddr := net.JoinHostPort(addr, port)
	var lastErr error
	// Transient network failures are retried a few times, as PBS retries
	// its copies; a key or authentication failure is final at once.
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Second)
		}
		conn, err := net.DialTimeout("tcp", dialAddr, d.cfg.ConnectTimeout)
		if err != nil {
			lastErr = fmt.Errorf("connect to %s (%s): %w", host, dialAddr, err)
			continue
		}
		_ = conn.SetDeadline(time.Now().Add(d.cfg.ConnectTimeout))
		c, chans, reqs, err := ssh.NewClientConn(conn, hostPort, cc)
		if err != nil {
			conn.Close()
			return nil, d.explain(host, keyName, err)
		}
		_ = conn.SetDeadline(time.Time{})
		return ssh.NewClient(c, chans, reqs), nil
	}
	return nil, lastErr
}

// address is where host is reached: its [ssh.addresses] entry or the
// name itself, with the configured port unless the entry names one.
func (d *sshDialer) address(host string) (addr, port string) {
	addr, port = host, strconv.Itoa(d.cfg.Port)
	if a, ok := d.cfg.Addresses[host]; ok {
		addr = a
		if h, p, ok := strings.Cut(a, ":"); ok {
			addr, port = h, p
		}
	}
	return addr, port
}

// explain turns a handshake error into what the owner needs to know.
func (d *sshDialer) explain(host, keyName string, err error) error {
	var ke *knownhosts.KeyError
	switch {
	case errors.As(err, &ke) && len(ke.Want) > 0:
		return fmt.Errorf("host key of %s does not match known_hosts (%s:%d): refusing to connect (possible man-in-the-middle)",
			keyName, ke.Want[0].Filename, ke.Want[0].Line)
	case errors.As(err, &ke):
		return fmt.Errorf("host key of %s is not in known_hosts (%s): refusing to connect", keyName, strings.Join(d.knownHostsFiles(), ", "))
	case strings.Contains(err.Error(), "unable to authenticate"):
		return fmt.Errorf("ssh to %s as %s: key authentication refused (%v)", host, d.user.Name, err)
	}
	return fmt.Errorf("ssh to %s: %w", host, err)
}

// knownHostsFiles lists the configured files, expanded.
func (d *sshDialer) knownHostsFiles() []string {
	var out []string
	for _, p := range d.cfg.UserKnownHosts {
		out = append(out, d.user.Expand(p))
	}
	return append(out, d.cfg.GlobalKnownHosts...)
}

// hostKeyCallback builds the known_hosts check from the files that exist
// and are trustworthy: the owner's must belong to the owner (or root) and
// the system's to root, neither writable by others. It also returns the
// host key algorithms known for keyName, so that the server is asked for
// a key type the file lists (otherwise a host known by its ed25519 key
// offering RSA first would look like a changed key).
func (d *sshDialer) hostKeyCallback(hostPort, keyName string) (ssh.HostKeyCallback, []string, error) {
	var files []string
	for i, p := range d.knownHostsFiles() {
		user := i < len(d.cfg.UserKnownHosts)
		if err := checkFileOwner(p, d.user.UID, user, 0o022); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				d.notes = append(d.notes, err.Error())
			}
			continue
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		why := strings.Join(d.knownHostsFiles(), ", ")
		if len(d.notes) > 0 {
			why = strings.Join(d.notes, "; ")
		}
		return nil, nil, fmt.Errorf("no known_hosts file to check %s against (%s): refusing to connect", keyName, why)
	}
	cb, err := knownhosts.New(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("read known_hosts: %w", err)
	}
	// Ask the database with a key it cannot hold: the error lists the
	// keys it does hold for this name.
	var algos []string
	probe := probeKey{}
	var ke *knownhosts.KeyError
	if err := cb(hostPort, &net.TCPAddr{IP: net.IPv4zero}, probe); errors.As(err, &ke) {
		for _, k := range ke.Want {
			algos = append(algos, algorithmsFor(k.Key.Type())...)
		}
	}
	return cb, algos, nil
}

// algorithmsFor maps a key type to the signature algorithms that use it.
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

// probeKey is a public key no known_hosts line can match.
type probeKey struct{}

func (probeKey) Type() string                                 { return "strata-probe" }
func (probeKey) Marshal() []byte                              { return []byte("strata-probe") }
func (probeKey) Verify(data []byte, sig *ssh.Signature) error { return errors.New("probe key") }

// signers loads the owner's private keys, skipping (with a note) those
// that are missing, not the owner's own private file, or encrypted.
func (d *sshDialer) signers() []ssh.Signer {
	var out []ssh.Signer
	for _, p := range d.cfg.IdentityFiles {
		path := d.user.Expand(p)
		b, err := readOwnedPrivate(path, d.user.UID)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				d.notes = append(d.notes, err.Error())
			}
			continue
		}
		s, err := ssh.ParsePrivateKey(b)
		var pp *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &pp):
			d.notes = append(d.notes, path+" is protected by a passphrase, which a batch job cannot give")
			continue
		case err != nil:
			d.notes = append(d.notes, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 && len(d.notes) == 0 {
		d.notes = append(d.notes, "none of "+strings.Join(d.cfg.IdentityFiles, ", ")+" exists")
	}
	return out
}

// readOwnedPrivate reads a private key the way ssh(1) accepts one: a
// regular file (symlinks are followed, with the owner's permissions)
// that belongs to uid and that neither group nor others may read.
func readOwnedPrivate(path string, uid int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case sys == nil || int(sys.Uid) != uid:
		return nil, fmt.Errorf("%s does not belong to the job owner: refused", path)
	case st.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("%s is accessible by others (mode %o): refused, as ssh refuses it", path, st.Mode().Perm())
	}
	return io.ReadAll(io.LimitReader(f, maxKeyFile))
}

// checkFileOwner accepts a known_hosts file owned by root, or by uid
// when ownerOK, with none of the mode bits in deny set.
func checkFileOwner(path string, uid int, ownerOK bool, deny os.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	switch {
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file: ignored", path)
	case sys == nil || !(sys.Uid == 0 || ownerOK && int(sys.Uid) == uid):
		return fmt.Errorf("%s belongs to another user: ignored", path)
	case st.Mode().Perm()&deny != 0:
		return fmt.Errorf("%s is writable by others: ignored", path)
	}
	return nil
}
