package clustercmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/pki"
)

// --remote-clients: the local cluster also serves commands over TCP with
// MUNGE, as a server does for login hosts (docs/deploy.md, "Login nodes and
// munge"). The servers get a [munge] table; the credentials are decoded by
// the host's munged when one runs at MUNGE's default socket, otherwise by a
// munged of the cluster's own (DIR/munge, with a generated key), started
// and stopped with the cluster. DIR/env.remote makes commands use that
// path and nothing else.

// Remote is the layout's record of remote clients.
type Remote struct {
	// MungeSocket is the munged the servers and env.remote use.
	MungeSocket string `json:"munge_socket"`
	// OwnMunged is set when the cluster runs that munged (DIR/munge).
	OwnMunged bool `json:"own_munged,omitempty"`
}

func mungeDaemon(dir string) munge.Daemon { return munge.Daemon{Dir: filepath.Join(dir, "munge")} }

// planRemote decides which munged a new cluster uses.
func planRemote(dir string) (*Remote, error) {
	if err := munge.Installed(); err != nil {
		return nil, fmt.Errorf("--remote-clients: %w", err)
	}
	if munge.Listening(munge.DefaultSocket) {
		return &Remote{MungeSocket: munge.DefaultSocket}, nil
	}
	return &Remote{MungeSocket: mungeDaemon(dir).Socket(), OwnMunged: true}, nil
}

// mungeTOML is the servers' [munge] table, appended to their
// configuration (a table, so it goes after every top-level key).
func (r *Remote) mungeTOML() []byte {
	return []byte(fmt.Sprintf("\n# Commands from login hosts (--remote-clients).\n[munge]\nenable = true\nsocket = %q\n", r.MungeSocket))
}

// startMunged starts the cluster's own munged unless it runs already.
func startMunged(dir string, r *Remote) error {
	if r == nil || !r.OwnMunged {
		return nil
	}
	d := mungeDaemon(dir)
	if d.Pid() != 0 && munge.Listening(d.Socket()) {
		return nil
	}
	// A socket left by a munged that was killed would make the new one
	// refuse to start.
	os.Remove(d.Socket())
	if _, err := d.Start(); err != nil {
		return fmt.Errorf("--remote-clients: %w", err)
	}
	return nil
}

// stopMunged stops the cluster's own munged.
func stopMunged(dir string, r *Remote) {
	if r == nil || !r.OwnMunged {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mungeDaemon(dir).Stop(ctx)
}

// writeEnvRemote writes DIR/env.remote: commands reach the servers over
// TCP (PBS_SERVER) with MUNGE credentials and verify them with the
// cluster CA; no Unix socket and no host client configuration.
func writeEnvRemote(dir, exe string, l *Layout) error {
	if l.Remote == nil {
		os.Remove(filepath.Join(dir, "env.remote"))
		return nil
	}
	// DIR/tls holds the CA's key and is root's alone; a login host has a
	// copy of the CA certificate, readable by every user. Refreshed at
	// each start, so a rotated CA reaches it.
	ca, err := os.ReadFile(filepath.Join(tlsDir(dir), pki.CAFile))
	if err != nil {
		return fmt.Errorf("cluster CA: %w", err)
	}
	caCopy := filepath.Join(dir, "remote-ca.pem")
	if err := os.WriteFile(caCopy, ca, 0o644); err != nil {
		return fmt.Errorf("cluster CA copy: %w", err)
	}
	env := fmt.Sprintf(`# Source this file to use the local cluster in %s as a login host does:
# TCP to the servers' API with MUNGE credentials, no Unix socket.
export PATH=%q:"$PATH"
unset STRATA_SOCKET PBS_DEFAULT
export STRATA_CONF=/dev/null
export PBS_SERVER=%q
export STRATA_CA_FILE=%q
export STRATA_MUNGE_SOCKET=%q
export STRATA_CLUSTER_DIR=%q
`, dir, filepath.Dir(exe), strings.Join(l.apiAddrs(), ","), caCopy, l.Remote.MungeSocket, dir)
	return os.WriteFile(filepath.Join(dir, "env.remote"), []byte(env), 0o644)
}
