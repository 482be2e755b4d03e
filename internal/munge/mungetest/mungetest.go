// Package mungetest runs a private munged for a test, with its own key, in
// the manner of net/http/httptest. Tests that need MUNGE skip, saying so,
// when it is not installed (apt-get install munge).
package mungetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
)

// Start runs munged with a fresh key until the test ends and returns its
// socket. The directory is reachable by every user (munged insists that
// the socket's directories are), so helpers running as other uids can ask
// it for credentials.
func Start(t testing.TB) string {
	t.Helper()
	if err := munge.Installed(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	dir, err := os.MkdirTemp("", "strata-munge-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	d := munge.Daemon{Dir: filepath.Join(dir, "munge")}
	cmd, err := d.Start()
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("munged: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		os.RemoveAll(dir)
	})
	return d.Socket()
}

// As is an encoder that asks munged for credentials of another uid and
// gid, as only root may (munge --uid/--gid): the attacker who holds the
// key, or a test standing in for a user. TTL 0 is munged's default.
type As struct {
	Socket   string
	UID, GID int
	TTL      int
}

// Encode returns a credential of a.UID carrying payload.
func (a As) Encode(ctx context.Context, payload []byte) (string, error) {
	args := []string{"--socket=" + a.Socket, "--uid=" + strconv.Itoa(a.UID), "--gid=" + strconv.Itoa(a.GID)}
	if a.TTL > 0 {
		args = append(args, "--ttl="+strconv.Itoa(a.TTL))
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "munge", args...)
	cmd.Stdin = strings.NewReader(string(payload))
	out, err := cmd.Output()
	if err != nil {
		return "", &munge.Error{Msg: err.Error()}
	}
	return strings.TrimSpace(string(out)), nil
}
