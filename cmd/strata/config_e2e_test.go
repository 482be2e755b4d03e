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
		{"server", "name = \"s\"\nsecret = \"x\"\nnode_down_after = \"1s\"\nheartbeat_interval = \"2s\"\n", "node_down_after"},
		{"server", "name = \"s\"\nsecret = \"x\"\nheartbeat_intervall = \"2s\"\n", "heartbeat_intervall"},
		{"server", "name = \"s\"\n", "secret"},
		{"server", "name = \"s\"\nsecret = \"x\"\ndefault_queue = \"nope\"\n", "default_queue"},
		{"mom", "secret = \"x\"\n", "server"},
		{"mom", "server = \"127.0.0.1:1\"\nsecret = \"x\"\nkill_delay = \"soon\"\n", "kill_delay"},
		{"mom", "server = \"127.0.0.1:1\"\nsecret = \"x\"\n[resources]\nncpus = \"many\"\n", "ncpus"},
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
