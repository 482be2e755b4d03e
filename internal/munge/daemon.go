package munge

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DefaultSocket is where a system munged (the munge package's service)
// listens.
const DefaultSocket = "/run/munge/munge.socket.2"

// Installed reports why MUNGE cannot be used on this host, or nil: the
// daemon and both programs must be in PATH.
func Installed() error {
	if _, err := daemonPath(); err != nil {
		return fmt.Errorf("munge is not installed (munged: %w); on Debian: apt-get install munge", err)
	}
	for _, p := range []string{"munge", "unmunge"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("munge is not installed (%s: %w); on Debian: apt-get install munge", p, err)
		}
	}
	return nil
}

// daemonPath finds munged, which lives in sbin, often not in a user's PATH.
func daemonPath() (string, error) {
	if p, err := exec.LookPath("munged"); err == nil {
		return p, nil
	}
	return exec.LookPath("/usr/sbin/munged")
}

// Listening reports whether a munged answers on socket.
func Listening(socket string) bool {
	c, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Daemon is a private munged whose files live in one directory: the key,
// the socket, its pid, log and seed files. A local cluster runs one when
// the host has no munged of its own.
type Daemon struct {
	Dir string
}

func (d Daemon) Socket() string  { return filepath.Join(d.Dir, "munge.socket") }
func (d Daemon) KeyFile() string { return filepath.Join(d.Dir, "munge.key") }
func (d Daemon) pidFile() string { return filepath.Join(d.Dir, "munged.pid") }

// LogFile is munged's own log.
func (d Daemon) LogFile() string { return filepath.Join(d.Dir, "munged.log") }

// Start creates the directory and a random 1024-byte key when missing and
// starts munged in the foreground of a new session (it outlives the
// caller; Stop ends it). munged refuses directories others may write to
// and keys others may read; the directory is 0755 so that every local user
// can reach the socket, and the key 0600.
func (d Daemon) Start() (*exec.Cmd, error) {
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("munge directory: %w", err)
	}
	if err := os.Chmod(d.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("munge directory: %w", err)
	}
	if _, err := os.Stat(d.KeyFile()); os.IsNotExist(err) {
		key := make([]byte, 1024)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("munge key: %w", err)
		}
		if err := os.WriteFile(d.KeyFile(), key, 0o600); err != nil {
			return nil, fmt.Errorf("munge key: %w", err)
		}
	}
	logf, err := os.OpenFile(d.LogFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("munge log: %w", err)
	}
	defer logf.Close()
	prog, err := daemonPath()
	if err != nil {
		return nil, fmt.Errorf("munged: %w", err)
	}
	cmd := exec.Command(prog, "--foreground", "--socket="+d.Socket(), "--key-file="+d.KeyFile(),
		"--pid-file="+d.pidFile(), "--seed-file="+filepath.Join(d.Dir, "munged.seed"),
		"--log-file="+d.LogFile())
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start munged: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for !Listening(d.Socket()) {
		select {
		case <-exited:
			return nil, fmt.Errorf("munged exited at start; see %s", d.LogFile())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			return nil, errors.New("munged did not open its socket within 10s")
		}
	}
	return cmd, nil
}

// Pid returns the pid of this directory's running munged, or 0. The pid
// file's process must still be a munged serving this directory's socket,
// so a recycled pid is never signalled.
func (d Daemon) Pid() int {
	b, err := os.ReadFile(d.pidFile())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "munged") || !strings.Contains(string(cmdline), d.Socket()) {
		return 0
	}
	return pid
}

// Stop ends this directory's munged, if one runs, and waits for it.
func (d Daemon) Stop(ctx context.Context) error {
	pid := d.Pid()
	if pid == 0 {
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop munged: %w", err)
	}
	for d.Pid() != 0 {
		select {
		case <-ctx.Done():
			syscall.Kill(pid, syscall.SIGKILL)
			return fmt.Errorf("munged %d did not stop: %w", pid, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
