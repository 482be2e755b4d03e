package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// TestConfigValidate: each bad key of the configuration file is reported
// by name at startup.
func TestConfigValidate(t *testing.T) {
	valid := func() *Config {
		c := DefaultConfig()
		c.Name = "svr"
		c.TLS = TLSConfig{CAFile: "ca.pem", CertFile: "s.pem", KeyFile: "s-key.pem"}
		return c
	}
	if err := valid().Validate(); err != nil {
		t.Fatalf("defaults with TLS files: %v", err)
	}
	neg := -1
	for _, tc := range []struct {
		key string
		mod func(*Config)
	}{
		{"name", func(c *Config) { c.Name = "a b" }},
		{"data_dir", func(c *Config) { c.DataDir = "" }},
		{"socket", func(c *Config) { c.Socket = "" }},
		{"tls.ca_file", func(c *Config) { c.TLS.CAFile = "" }},
		{"tls.cert_file", func(c *Config) { c.TLS.CertFile = "" }},
		{"tls.key_file", func(c *Config) { c.TLS.KeyFile = "" }},
		{"heartbeat_interval", func(c *Config) { c.HeartbeatInterval.Duration = 0 }},
		{"node_down_after", func(c *Config) { c.NodeDownAfter = c.HeartbeatInterval }},
		{"scheduler_min_interval", func(c *Config) { c.SchedulerMinInterval.Duration = -time.Second }},
		{"scheduler_iteration", func(c *Config) { c.SchedulerIteration.Duration = 0 }},
		{"max_job_sequence_id", func(c *Config) { c.MaxJobSequenceID = 5 }},
		{"api_addr", func(c *Config) { c.APIAddr = "nowhere" }},
		{"raft_addr", func(c *Config) { c.RaftAddr = "nowhere" }},
		{"resource", func(c *Config) { c.Resources = []model.ResourceDef{{Name: "x", Type: "complex"}} }},
		{"queue", func(c *Config) { c.Queues = append(c.Queues, model.QueueConfig{}) }},
		{"queue", func(c *Config) { c.Queues = append(c.Queues, model.QueueConfig{Name: "r", Type: "route"}) }},
		{"default_queue", func(c *Config) { c.DefaultQueue = "nosuch" }},
		{"job_sort_key", func(c *Config) { c.JobSortKey = []string{"nosuch HIGH"} }},
		{"job_sort_formula", func(c *Config) { c.JobSortFormula = "ncpus*(" }},
		{"backfill_depth", func(c *Config) { c.BackfillDepth = -1 }},
		{"queue.backfill_depth", func(c *Config) {
			c.Queues = append(c.Queues, model.QueueConfig{Name: "q", BackfillDepth: &neg})
		}},
		{"limits.read_timeout", func(c *Config) { c.Limits.ReadTimeout.Duration = 0 }},
		{"default_chunk.nosuch", func(c *Config) { c.DefaultChunk = map[string]string{"nosuch": "1"} }},
		{"resources_default.ncpus", func(c *Config) { c.ResourcesDefault = map[string]string{"ncpus": "many"} }},
	} {
		c := valid()
		tc.mod(c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "config key "+tc.key) {
			t.Errorf("%s: %v", tc.key, err)
		}
	}
}

// TestLoadConfig: a file's relative paths are taken from its directory,
// durations may be Go or PBS style, unknown keys are refused and the
// retired shared secret is refused with the migration hint.
func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "strata.toml")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := "name = \"svr\"\ndata_dir = \"data\"\nheartbeat_interval = \"2s\"\nnode_down_after = \"30\"\n" +
		"[tls]\nca_file = \"tls/ca.pem\"\ncert_file = \"tls/s.pem\"\nkey_file = \"tls/s-key.pem\"\n"
	c, err := LoadConfig(write(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != filepath.Join(dir, "data") || c.TLS.CAFile != filepath.Join(dir, "tls/ca.pem") {
		t.Errorf("paths not relative to the file: %s %s", c.DataDir, c.TLS.CAFile)
	}
	if c.HeartbeatInterval.Duration != 2*time.Second || c.NodeDownAfter.Duration != 30*time.Second {
		t.Errorf("durations %v %v", c.HeartbeatInterval, c.NodeDownAfter)
	}
	if b, err := c.NodeDownAfter.MarshalText(); err != nil || string(b) != "30s" {
		t.Errorf("MarshalText = %s %v", b, err)
	}
	if _, err := LoadConfig(write("bogus = 1\n" + base)); err == nil || !strings.Contains(err.Error(), `unknown key "bogus"`) {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := LoadConfig(write("secret = \"x\"\n" + base)); err == nil || !strings.Contains(err.Error(), "retired") {
		t.Errorf("shared secret: %v", err)
	}
	if _, err := LoadConfig(write(strings.Replace(base, `"2s"`, `"soon"`, 1))); err == nil {
		t.Error("a duration that is not one was accepted")
	}
}
