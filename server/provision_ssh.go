package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
)

// ProvisionSSHConfig is the server's [provision_ssh] table: how the leader
// reaches a host to run the provision hook there (hook provision_mode =
// ssh). The host key is always checked against KnownHosts; only key
// authentication is offered.
type ProvisionSSHConfig struct {
	// User is the remote user (default root).
	User string `toml:"user"`
	// KeyFile is the private key (PEM/OpenSSH, unencrypted).
	KeyFile string `toml:"key_file"`
	// KnownHosts is an OpenSSH known_hosts file.
	KnownHosts string `toml:"known_hosts"`
	// Port is the SSH port (default 22).
	Port int `toml:"port"`
	// Addresses maps a host name to "addr:port" when the host is not
	// reachable under its own name (a management network, a test).
	Addresses map[string]string `toml:"addresses"`
	// ConnectTimeout bounds the dial and handshake (default 10s).
	ConnectTimeout Duration `toml:"connect_timeout"`
}

func (c *ProvisionSSHConfig) address(host string) string {
	if a, ok := c.Addresses[host]; ok {
		return a
	}
	port := c.Port
	if port == 0 {
		port = 22
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// runSSHProvision runs the provision hook on host over SSH: the script is
// sent base64-encoded in the command (no scp needed), the event JSON on
// stdin, the STRATA_HOOK_* variables set on the command line (servers
// usually refuse setenv requests). A failure to connect or authenticate is
// "could not start" (the job is held, the vnodes stay usable).
func (s *Server) runSSHProvision(ctx context.Context, h *model.Hook, ev hooks.Event, host string) (kind string, exit int, msg string) {
	cfg := s.cfg.ProvisionSSH
	client, err := dialSSH(ctx, &cfg, host)
	if err != nil {
		return hooks.ProvNotStarted, -1, err.Error()
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return hooks.ProvNotStarted, -1, fmt.Sprintf("ssh %s: session: %v", host, err)
	}
	defer sess.Close()
	ev.Hook = h.Name
	ev.Config = h.Config
	input, _ := json.Marshal(ev)
	sess.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	sess.Stdout, sess.Stderr = &limitWriter{w: &stdout, n: hooks.MaxOutput}, &limitWriter{w: &stderr, n: hooks.MaxOutput}
	done := make(chan error, 1)
	go func() { done <- sess.Run(sshCommand(h, ev)) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		sess.Signal(ssh.SIGKILL)
		client.Close()
		<-done
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return hooks.ProvTimedOut, -1, "alarm call while running provision hook '" + h.Name + "' over ssh"
		}
		return hooks.ProvAbandoned, -1, ""
	}
	msg = strings.TrimSpace(stderr.String())
	if err == nil {
		return hooks.ProvExited, 0, msg
	}
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		return hooks.ProvExited, ee.ExitStatus(), msg
	}
	return hooks.ProvExited, -1, fmt.Sprintf("ssh %s: %v %s", host, err, msg)
}

func dialSSH(ctx context.Context, cfg *ProvisionSSHConfig, host string) (*ssh.Client, error) {
	if cfg.KeyFile == "" || cfg.KnownHosts == "" {
		return nil, fmt.Errorf("ssh provisioning needs [provision_ssh] key_file and known_hosts in the server configuration")
	}
	keyPEM, err := os.ReadFile(cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("ssh key: %w", err)
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("ssh key %s: %w", cfg.KeyFile, err)
	}
	check, err := knownhosts.New(cfg.KnownHosts)
	if err != nil {
		return nil, fmt.Errorf("known_hosts: %w", err)
	}
	user := cfg.User
	if user == "" {
		user = "root"
	}
	timeout := cfg.ConnectTimeout.Duration
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	addr := cfg.address(host)
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ssh %s: %w", addr, err)
	}
	conn.SetDeadline(time.Now().Add(timeout))
	c, chans, reqs, err := ssh.NewClientConn(conn, addr, &ssh.ClientConfig{
		User: user, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: check, Timeout: timeout,
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("ssh %s: %w", addr, err)
	}
	conn.SetDeadline(time.Time{})
	return ssh.NewClient(c, chans, reqs), nil
}

// sshCommand is the remote shell command running the hook script.
func sshCommand(h *model.Hook, ev hooks.Event) string {
	env := map[string]string{
		"STRATA_HOOK_EVENT": ev.Type, "STRATA_HOOK_NAME": h.Name, "STRATA_HOOK_REQUESTOR": ev.Requestor,
		"STRATA_HOOK_VNODE": ev.Vnode, "STRATA_HOOK_AOE": ev.AOE,
	}
	var vars []string
	for _, k := range model.SortedKeys(env) {
		vars = append(vars, k+"="+shellQuote(env[k]))
	}
	sort.Strings(vars)
	run := `"$f"`
	if h.ContentType == model.HookContentPython {
		run = `python3 "$f"`
	}
	script := base64.StdEncoding.EncodeToString([]byte(h.Script))
	return `f=$(mktemp) && printf %s '` + script + `' | base64 -d > "$f" && chmod 700 "$f" && ` +
		strings.Join(vars, " ") + ` ` + run + `; rc=$?; rm -f "$f"; exit $rc`
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// limitWriter keeps the first n bytes.
type limitWriter struct {
	w interface{ Write([]byte) (int, error) }
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
