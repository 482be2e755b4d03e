//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadConfigurationNamesTheKey: a daemon with a bad configuration
// refuses to start and says which key is wrong.
func TestBadConfigurationNamesTheKey(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		role, toml, want string
	}{
		{"server", "name = \"s\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/s.pem\", key_file = \"/k.pem\" }\nnode_down_after = \"1s\"\nheartbeat_interval = \"2s\"\n", "node_down_after"},
		{"server", "name = \"s\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/s.pem\", key_file = \"/k.pem\" }\nheartbeat_intervall = \"2s\"\n", "heartbeat_intervall"},
		{"server", "name = \"s\"\n", "tls.ca_file"},
		// The retired shared secret is refused, pointing at the migration.
		{"server", "name = \"s\"\nsecret = \"x\"\n", "Migrating from the shared secret"},
		{"server", "name = \"s\"\nsecret_file = \"/x\"\n", "key \"secret_file\" is retired"},
		{"mom", "server = \"127.0.0.1:1\"\nsecret = \"x\"\n", "security.md"},
		{"server", "name = \"s\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/s.pem\", key_file = \"/k.pem\" }\ndefault_queue = \"nope\"\n", "default_queue"},
		{"mom", "tls = { ca_file = \"/c.pem\", cert_file = \"/s.pem\", key_file = \"/k.pem\" }\n", "server"},
		{"mom", "server = \"127.0.0.1:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/s.pem\", key_file = \"/k.pem\" }\nkill_delay = \"soon\"\n", "kill_delay"},
		{"mom", "server = \"127.0.0.1:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/s.pem\", key_file = \"/k.pem\" }\n[resources]\nncpus = \"many\"\n", "ncpus"},
	}
	for i, tc := range cases {
		path := filepath.Join(dir, tc.role+string(rune('a'+i))+".toml")
		os.WriteFile(path, []byte(tc.toml), 0o644)
		out, err := exec.Command(filepath.Join(binDir, "strata"), tc.role, "--config", path).CombinedOutput()
		if err == nil {
			t.Errorf("%s started with %q", tc.role, tc.toml)
			continue
		}
		if !strings.Contains(string(out), tc.want) || !strings.HasPrefix(string(out), "strata "+tc.role+": ") {
			t.Errorf("%s with %q: %q does not name %s", tc.role, tc.toml, out, tc.want)
		}
	}
}
