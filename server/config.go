package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/policy"
)

// Config is the server's TOML configuration. docs/configuration.md lists
// every key with its default; keep the two in step.
type Config struct {
	// Name is the server name in job ids ("<seq>.<name>"); default: the
	// short host name.
	Name string `toml:"name"`
	// DataDir holds the Raft log, stable store and snapshots.
	DataDir string `toml:"data_dir"`
	// Socket is the Unix socket local commands connect to.
	Socket string `toml:"socket"`
	// APIAddr is the TCP address agents (and later other servers) use.
	APIAddr string `toml:"api_addr"`
	// RaftAddr is the Raft transport address.
	RaftAddr string `toml:"raft_addr"`
	// MetricsAddr is where Prometheus metrics are served over plain HTTP
	// at /metrics (server/metrics, docs/metrics.md); empty: off. Counts
	// only, no names; bind it to loopback or a management network.
	MetricsAddr string `toml:"metrics_addr"`
	// Web serves the read-only web page (server/web) at /ui/ on
	// metrics_addr; WebURL is the page's address in the links `strata web
	// login` prints (default: http://metrics_addr).
	Web    bool   `toml:"web"`
	WebURL string `toml:"web_url"`
	// TLS is the cluster PKI: this server's certificate (server role)
	// serves the TCP API and Raft, and the CA bundle verifies agents and
	// other servers.
	TLS TLSConfig `toml:"tls"`
	// LogFile receives the server's event log (tracejob reads it later);
	// empty means stderr.
	LogFile string `toml:"log_file"`

	SnapshotThreshold uint64   `toml:"snapshot_threshold"`
	SnapshotInterval  Duration `toml:"snapshot_interval"`
	TrailingLogs      uint64   `toml:"trailing_logs"`
	// FastRaft shrinks election timers (local clusters, tests).
	FastRaft bool `toml:"fast_raft"`
	// RaftTimeout is Raft's heartbeat and election timeout (the leader
	// lease is half of it): how long followers wait for a silent leader
	// before electing another. 0 means raftstore.DefaultTimeout (500ms).
	RaftTimeout Duration `toml:"raft_timeout"`
	// NodeID is this server's Raft id; with Peers it must name one of
	// them. Peers lists every server of a multi-server cluster (this one
	// included): a new cluster bootstraps from it (peers.go, docs/ha.md).
	NodeID string `toml:"node_id"`
	Peers  []Peer `toml:"peer"`
	// Join starts a server that never bootstraps: it waits to be added
	// to a running cluster (strata operator raft add-peer).
	Join bool `toml:"join"`

	// HeartbeatInterval is what agents are told to use; a host is marked
	// down after NodeDownAfter without one.
	HeartbeatInterval Duration `toml:"heartbeat_interval"`
	NodeDownAfter     Duration `toml:"node_down_after"`
	// SchedulerMinInterval coalesces triggers: cycles start at most this
	// often. SchedulerIteration is the periodic cycle (scheduler_iteration).
	SchedulerMinInterval Duration `toml:"scheduler_min_interval"`
	SchedulerIteration   Duration `toml:"scheduler_iteration"`

	// Replicated server attributes, applied by the leader when they differ
	// from the replicated configuration.
	JobHistoryEnable   bool                `toml:"job_history_enable"`
	JobHistoryDuration Duration            `toml:"job_history_duration"`
	QueryOtherJobs     bool                `toml:"query_other_jobs"`
	Managers           []string            `toml:"managers"`
	Operators          []string            `toml:"operators"`
	AllowRootJobs      bool                `toml:"allow_root_jobs"`
	NodeFailRequeue    Duration            `toml:"node_fail_requeue"`
	DefaultQueue       string              `toml:"default_queue"`
	Queues             []model.QueueConfig `toml:"queue"`
	Resources          []model.ResourceDef `toml:"resource"`
	DefaultChunk       map[string]string   `toml:"default_chunk"`
	ResourcesDefault   map[string]string   `toml:"resources_default"`
	MaxJobSequenceID   int64               `toml:"max_job_sequence_id"`
	NodeSortKey        []string            `toml:"node_sort_key"`
	// ProvisionSSH is how the leader reaches hosts for provision hooks in
	// ssh mode (provision_ssh.go).
	ProvisionSSH ProvisionSSHConfig `toml:"provision_ssh"`
	// Comment is the server's comment attribute, shown above qstat's
	// tables.
	Comment string `toml:"comment"`
	// DefaultQsubArguments seeds default_qsub_arguments.
	DefaultQsubArguments string `toml:"default_qsub_arguments"`
	// Job order and strict ordering (docs/scheduling.md). BackfillDepth
	// defaults to 1, OpenPBS's value for an unset backfill_depth.
	ByQueue                 bool     `toml:"by_queue"`
	RoundRobin              bool     `toml:"round_robin"`
	JobSortKey              []string `toml:"job_sort_key"`
	JobSortFormula          string   `toml:"job_sort_formula"`
	JobSortFormulaThreshold *float64 `toml:"job_sort_formula_threshold"`
	StrictOrdering          bool     `toml:"strict_ordering"`
	BackfillDepth           int      `toml:"backfill_depth"`
	// Limits are the API's timeouts, size limits and per-caller caps
	// (limits.go).
	Limits Limits `toml:"limits"`

	// Munge is the [munge] table: commands from login hosts
	// authenticated by MUNGE credentials (remoteauth.go).
	Munge MungeConfig `toml:"munge"`
}

// TLSConfig is the [tls] table (docs/security.md). Relative paths are
// relative to the configuration file.
type TLSConfig struct {
	CAFile   string `toml:"ca_file"`
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
}

// Files returns the paths for pki.NewSource.
func (t TLSConfig) Files() pki.Files {
	return pki.Files{CA: t.CAFile, Cert: t.CertFile, Key: t.KeyFile}
}

// RetiredSecretError is the message for the shared-secret keys of earlier
// releases: they would be a root credential sent in clear text, so a
// configuration that still has them does not start.
func RetiredSecretError(key string) string {
	return fmt.Sprintf("key %q is retired: agents and servers authenticate with TLS certificates now; "+
		"remove it and set [tls] ca_file, cert_file and key_file (strata tls init; see docs/security.md, "+
		"\"Migrating from the shared secret\")", key)
}

// Duration is a time.Duration written as "10s" in TOML.
type Duration struct{ time.Duration }

// UnmarshalText parses "1m30s"; a bare number means seconds, as PBS writes
// attribute durations.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if v, err := time.ParseDuration(s); err == nil {
		d.Duration = v
		return nil
	}
	if secs, err := model.ParseDuration(s); err == nil {
		d.Duration = time.Duration(secs) * time.Second
		return nil
	}
	return fmt.Errorf("%q is not a duration", s)
}

// MarshalText writes the duration back.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// DefaultConfig returns the defaults documented in docs/configuration.md.
func DefaultConfig() *Config {
	host, _ := os.Hostname()
	if i := strings.IndexByte(host, '.'); i > 0 {
		host = host[:i]
	}
	return &Config{
		Name:                 host,
		DataDir:              "/var/lib/strata/server",
		Socket:               "/var/run/strata/strata.sock",
		APIAddr:              "127.0.0.1:15001",
		RaftAddr:             "127.0.0.1:15002",
		SnapshotThreshold:    8192,
		SnapshotInterval:     Duration{2 * time.Minute},
		TrailingLogs:         10240,
		HeartbeatInterval:    Duration{2 * time.Second},
		NodeDownAfter:        Duration{10 * time.Second},
		SchedulerMinInterval: Duration{20 * time.Millisecond},
		SchedulerIteration:   Duration{10 * time.Minute},
		JobHistoryEnable:     true,
		JobHistoryDuration:   Duration{14 * 24 * time.Hour},
		QueryOtherJobs:       true,
		NodeFailRequeue:      Duration{310 * time.Second},
		DefaultQueue:         "workq",
		Queues:               []model.QueueConfig{{Name: "workq", Type: "execution", Enabled: true, Started: true}},
		DefaultChunk:         map[string]string{"ncpus": "1"},
		MaxJobSequenceID:     9999999,
		NodeSortKey:          []string{"sort_priority HIGH"},
		BackfillDepth:        1,
		Limits:               DefaultLimits(),
	}
}

// LoadConfig reads a TOML file over the defaults. Unknown keys are errors,
// so a typo is reported instead of silently ignored.
func LoadConfig(path string) (*Config, error) {
	cfg := DefaultConfig()
	if path != "" {
		md, err := toml.DecodeFile(path, cfg)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", path, err)
		}
		for _, k := range md.Undecoded() {
			if k.String() == "secret" || k.String() == "secret_file" {
				return nil, fmt.Errorf("config %s: %s", path, RetiredSecretError(k.String()))
			}
		}
		if undec := md.Undecoded(); len(undec) > 0 {
			return nil, fmt.Errorf("config %s: unknown key %q", path, undec[0].String())
		}
		base := filepath.Dir(path)
		for _, p := range []*string{&cfg.DataDir, &cfg.Socket, &cfg.LogFile, &cfg.TLS.CAFile, &cfg.TLS.CertFile, &cfg.TLS.KeyFile} {
			if *p != "" && !filepath.IsAbs(*p) {
				*p = filepath.Join(base, *p)
			}
		}
	}
	return cfg, cfg.Validate()
}

// Validate reports the first bad key by name.
func (c *Config) Validate() error {
	bad := func(key, why string) error { return fmt.Errorf("config key %s: %s", key, why) }
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, " @[]"):
		return bad("name", fmt.Sprintf("%q is not a valid server name", c.Name))
	case c.DataDir == "":
		return bad("data_dir", "must be set")
	case c.Socket == "":
		return bad("socket", "must be set")
	case c.TLS.CAFile == "":
		return bad("tls.ca_file", "must be set: the cluster CA bundle (strata tls init creates one)")
	case c.TLS.CertFile == "":
		return bad("tls.cert_file", "must be set: this server's certificate")
	case c.TLS.KeyFile == "":
		return bad("tls.key_file", "must be set: this server's private key")
	case c.HeartbeatInterval.Duration <= 0:
		return bad("heartbeat_interval", "must be positive")
	case c.NodeDownAfter.Duration <= c.HeartbeatInterval.Duration:
		return bad("node_down_after", "must be longer than heartbeat_interval")
	case c.SchedulerMinInterval.Duration < 0:
		return bad("scheduler_min_interval", "must not be negative")
	case c.SchedulerIteration.Duration <= 0:
		return bad("scheduler_iteration", "must be positive")
	case c.RaftTimeout.Duration != 0 && c.RaftTimeout.Duration < 50*time.Millisecond:
		return bad("raft_timeout", "must be at least 50ms")
	case c.MaxJobSequenceID < 9999999 || c.MaxJobSequenceID > 999999999999:
		return bad("max_job_sequence_id", "must be between 9999999 and 999999999999")
	}
	for _, addr := range []struct{ key, v string }{{"api_addr", c.APIAddr}, {"raft_addr", c.RaftAddr}} {
		if !strings.Contains(addr.v, ":") {
			return bad(addr.key, fmt.Sprintf("%q is not host:port", addr.v))
		}
	}
	defs := model.BuiltinResources()
	for _, r := range c.Resources {
		if err := r.Validate(); err != nil {
			return bad("resource", err.Error())
		}
		defs[r.Name] = r
	}
	queues := map[string]bool{}
	for _, q := range c.Queues {
		if q.Name == "" {
			return bad("queue", "a queue needs a name")
		}
		if q.Type != "" && q.Type != "execution" {
			return bad("queue", fmt.Sprintf("queue %s: only execution queues are supported", q.Name))
		}
		queues[q.Name] = true
	}
	if c.DefaultQueue != "" && !queues[c.DefaultQueue] {
		return bad("default_queue", fmt.Sprintf("queue %q is not defined", c.DefaultQueue))
	}
	if err := validateSchedPolicy(c, defs); err != nil {
		return err
	}
	if err := c.Limits.validate(); err != nil {
		return err
	}
	if err := c.validatePeers(); err != nil {
		return err
	}
	for key, m := range map[string]map[string]string{"default_chunk": c.DefaultChunk, "resources_default": c.ResourcesDefault} {
		for name, v := range m {
			d, ok := defs[name]
			if !ok {
				return bad(key+"."+name, "unknown resource")
			}
			if _, err := d.Normalize(v); err != nil {
				return bad(key+"."+name, err.Error())
			}
		}
	}
	return nil
}

// ServerConfig turns the file's replicated attributes into the state's form.
func (c *Config) ServerConfig() model.ServerConfig {
	queues := map[string]model.QueueConfig{}
	for _, q := range c.Queues {
		if q.Type == "" {
			q.Type = "execution"
		}
		queues[q.Name] = q
	}
	return model.ServerConfig{
		Name:               c.Name,
		Defs:               model.BuiltinResources().With(c.Resources...),
		DefaultQueue:       c.DefaultQueue,
		Queues:             queues,
		JobHistoryEnable:   c.JobHistoryEnable,
		JobHistoryDuration: int64(c.JobHistoryDuration.Seconds()),
		QueryOtherJobs:     c.QueryOtherJobs,
		Managers:           c.Managers,
		Operators:          c.Operators,
		AllowRoot:          c.AllowRootJobs,
		NodeFailRequeue:    int64(c.NodeFailRequeue.Seconds()),
		DefaultChunk:       c.DefaultChunk,
		ResourcesDefault:   c.ResourcesDefault,
		MaxJobSequenceID:   c.MaxJobSequenceID,
		Scheduling:         true,
		NodeSortKeys:       c.NodeSortKey,
		Sched: model.SchedConfig{
			ByQueue:                 c.ByQueue,
			RoundRobin:              c.RoundRobin,
			JobSortKeys:             c.JobSortKey,
			JobSortFormula:          c.JobSortFormula,
			JobSortFormulaThreshold: c.JobSortFormulaThreshold,
			StrictOrdering:          c.StrictOrdering,
			BackfillDepth:           int64(c.BackfillDepth),
		},
		Comment:              c.Comment,
		DefaultQsubArguments: c.DefaultQsubArguments,
	}
}

// validateSchedPolicy checks the job-order keys, so that a typo is reported
// at startup rather than silently ignored by every cycle.
func validateSchedPolicy(c *Config, defs model.ResourceDefs) error {
	if _, err := policy.ParseJobSortKeys(c.JobSortKey, defs); err != nil {
		return fmt.Errorf("config key job_sort_key: %v", err)
	}
	if c.JobSortFormula != "" {
		if _, err := policy.ParseFormula(c.JobSortFormula); err != nil {
			return fmt.Errorf("config key job_sort_formula: %v", err)
		}
	}
	if c.BackfillDepth < 0 {
		return fmt.Errorf("config key backfill_depth: must not be negative")
	}
	for _, q := range c.Queues {
		if q.BackfillDepth != nil && *q.BackfillDepth < 0 {
			return fmt.Errorf("config key queue.backfill_depth: queue %s: must not be negative", q.Name)
		}
	}
	return nil
}
