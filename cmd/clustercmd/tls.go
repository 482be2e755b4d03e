package clustercmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-hpc/strata/pki"
)

// A local cluster uses the same PKI as a production one: DIR/tls holds the
// CA, the server certificate and one agent certificate per agent, each for
// its own node name, so the local cluster and the tests exercise the real
// mutual TLS on Raft and the agent API.

func tlsDir(dir string) string { return filepath.Join(dir, "tls") }

// createPKI makes DIR/tls for a cluster whose agents are hosts.
func createPKI(dir string, hosts []string) error {
	td := tlsDir(dir)
	if err := pki.Init(td, []string{"127.0.0.1", "localhost"}); err != nil {
		return fmt.Errorf("cluster PKI: %w", err)
	}
	for _, h := range hosts {
		cert, key := pki.AgentFiles(td, h)
		if _, err := pki.Issue(td, pki.RoleAgent, []string{h}, cert, key); err != nil {
			return fmt.Errorf("cluster PKI: %w", err)
		}
	}
	return nil
}

// serverTLS and agentTLS are the [tls] settings of the generated configs,
// written as inline tables: a top-level line that may go anywhere before
// the first table, so --server-config text appended after it keeps its
// meaning.
func serverTLS(dir string) string {
	td := tlsDir(dir)
	return fmt.Sprintf("tls = { ca_file = %q, cert_file = %q, key_file = %q }",
		filepath.Join(td, pki.CAFile), filepath.Join(td, pki.ServerFile), filepath.Join(td, pki.ServerKeyFile))
}

func agentTLS(dir, host string) string {
	cert, key := pki.AgentFiles(tlsDir(dir), host)
	return fmt.Sprintf("tls = { ca_file = %q, cert_file = %q, key_file = %q }",
		filepath.Join(tlsDir(dir), pki.CAFile), cert, key)
}

// migrateSecret converts a cluster directory written by a release that
// authenticated agents with a shared secret (DIR/secret, no DIR/tls): it
// creates DIR/tls, replaces the secret keys of each generated config with
// its [tls] settings and removes DIR/secret. Only a stopped cluster is
// converted; processes of the old release still running would keep the
// old configuration.
func migrateSecret(dir string, l *Layout) error {
	if _, err := os.Stat(tlsDir(dir)); err == nil {
		return nil
	}
	secret := filepath.Join(dir, "secret")
	if _, err := os.Stat(secret); err != nil {
		return nil
	}
	var hosts []string
	for _, p := range l.Procs {
		if pidOf(dir, p.Name) != 0 {
			return fmt.Errorf("%s was created by an earlier release (shared agent secret) and %s still runs: "+
				"run strata cluster stop --dir %s, then start it again to convert it to TLS", dir, p.Name, dir)
		}
		if p.Role == "mom" {
			hosts = append(hosts, p.Name)
		}
	}
	if err := createPKI(dir, hosts); err != nil {
		return err
	}
	for _, p := range l.Procs {
		line := serverTLS(dir)
		if p.Role == "mom" {
			line = agentTLS(dir, p.Name)
		}
		if err := replaceSecretKeys(p.Config, line); err != nil {
			return fmt.Errorf("convert %s to TLS: %w", p.Config, err)
		}
	}
	return os.Remove(secret)
}

// replaceSecretKeys puts line where the file's secret or secret_file key
// was (top level in the files cluster start writes), or after the first
// line when there was none.
func replaceSecretKeys(path, line string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var out []string
	placed := false
	for _, l := range strings.Split(string(b), "\n") {
		key := strings.TrimSpace(strings.SplitN(l, "=", 2)[0])
		if key == "secret" || key == "secret_file" {
			if !placed {
				out = append(out, line)
				placed = true
			}
			continue
		}
		out = append(out, l)
	}
	if !placed {
		out = append(out[:1], append([]string{line}, out[1:]...)...)
	}
	return os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644)
}
