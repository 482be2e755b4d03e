package mom

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
)

// Config is the agent's configuration. LoadConfig reads it from TOML; the
// TOML key of each field is given in its comment.
type Config struct {
	// Server is the TCP address of the server API ("127.0.0.1:15001"),
	// or several separated by commas (TOML: server, or servers = [...]
	// for the servers of a multi-server cluster). Required.
	Server string
	// TLS names the cluster CA bundle and this host's agent certificate
	// and key (strata tls issue --host H); the agent is who its
	// certificate says. TOML: [tls] table with ca_file, cert_file and
	// key_file, all required. The shared secret of earlier releases
	// (secret, secret_file) is refused.
	TLS pki.Files
	// Host is the host name this agent reports and the name of its default
	// vnode. TOML: host. Default: os.Hostname up to the first dot.
	Host string
	// Spool is the directory holding per-job state; it must survive agent
	// restarts. TOML: spool. Default /var/spool/strata/mom.
	Spool string
	// TmpDir is where per-job TMPDIRs (<tmpdir>/pbs.<jobid>) are created.
	// TOML: tmpdir. Default /var/tmp.
	TmpDir string
	// KillDelay is the time between SIGTERM and SIGKILL when a job is
	// deleted or exceeds its walltime. TOML: kill_delay (Go duration
	// string, "10s"). Default 10s.
	KillDelay time.Duration
	// HeartbeatInterval is how often the agent tells the server it is
	// alive; a non-zero interval in the server's register reply overrides
	// it. TOML: heartbeat_interval ("2s"). Default 2s.
	HeartbeatInterval time.Duration
	// UsageInterval is how often a running job's resources_used (cput,
	// walltime, mem...) is sampled and reported to the server.
	// TOML: usage_interval ("10s"). Default 10s.
	UsageInterval time.Duration
	// Resources are resources_available of the default vnode, named after
	// the host. TOML: [resources] table: ncpus (default runtime.NumCPU),
	// mem (size, default physical memory), ngpus, arch (default "linux"),
	// aoe (array of strings, stored comma-joined), plus any custom resource
	// with a string, boolean, integer or float value (booleans become
	// "True"/"False").
	Resources map[string]string
	// SortPriority is the default vnode's sort priority. TOML: sort_priority.
	SortPriority int
	// ProvisionEnable allows provisioning the default vnode to another AOE.
	// TOML: provision_enable.
	ProvisionEnable bool
	// CurrentAOE is the AOE the default vnode runs now. TOML: current_aoe.
	CurrentAOE string
	// AOEFile is a marker file holding the AOE the host runs; when set the
	// agent reports it at registration (it wins over current_aoe) and an
	// agent-side provision hook finds its path in STRATA_HOOK_AOE_FILE.
	// TOML: aoe_file.
	AOEFile string
	// RebootCommand runs after a provision hook exited 0 (OS
	// provisioning), in its own session. TOML: reboot_command (array).
	RebootCommand []string
	// BootIDFile, when set, holds the boot id the agent announces instead
	// of the kernel's (the local cluster's simulated reboots).
	// TOML: boot_id_file.
	BootIDFile string
	// Vnodes, when present, replace the default vnode (multi-vnode hosts);
	// [resources], sort_priority, provision_enable and current_aoe then
	// have no effect.
	// TOML: [[vnode]] array with name, sharing, sort_priority,
	// provision_enable, current_aoe and a resources table (same value rules
	// as [resources]; arch defaults to "linux").
	Vnodes []VnodeConfig
	// Cgroups is the [cgroups] table: job containment and enforcement
	// (cgroup.go). Default: mode auto, nothing enforced.
	Cgroups CgroupConfig
	// Transfer is how job files reach other hosts: the [ssh] table and
	// the [[usecp]] mappings (stage_config.go, docs/staging.md).
	Transfer TransferConfig
	// MetricsAddr is where the agent serves Prometheus metrics over
	// plain HTTP at /metrics; empty: off. TOML: metrics_addr.
	MetricsAddr string
	// ShepherdCommand is the command line that starts a job's shepherd;
	// "run <jobdir>" is appended. Not read from TOML. Default: the
	// strata-shepherd executable in the directory of this executable
	// (make install puts both in BINDIR; launch.go).
	ShepherdCommand []string
	// HelperCommand is the command line of the helpers a shepherd starts
	// as the job's owner ("transfer" is appended). Not read from TOML.
	// Default: this executable with the "mom-shepherd" subcommand; empty:
	// ShepherdCommand (tests, whose one binary is both).
	HelperCommand []string
}

// VnodeConfig is one [[vnode]] entry.
type VnodeConfig struct {
	Name            string
	Sharing         string
	SortPriority    int
	ProvisionEnable bool
	CurrentAOE      string
	Resources       map[string]string
}

// fileConfig mirrors the TOML layout; values are converted and checked into
// a Config so that every error can name its key.
type fileConfig struct {
	Server            string         `toml:"server"`
	Servers           []string       `toml:"servers"`
	TLS               fileTLS        `toml:"tls"`
	Host              string         `toml:"host"`
	Spool             string         `toml:"spool"`
	TmpDir            string         `toml:"tmpdir"`
	KillDelay         string         `toml:"kill_delay"`
	HeartbeatInterval string         `toml:"heartbeat_interval"`
	UsageInterval     string         `toml:"usage_interval"`
	SortPriority      int            `toml:"sort_priority"`
	ProvisionEnable   bool           `toml:"provision_enable"`
	CurrentAOE        string         `toml:"current_aoe"`
	AOEFile           string         `toml:"aoe_file"`
	RebootCommand     []string       `toml:"reboot_command"`
	BootIDFile        string         `toml:"boot_id_file"`
	Resources         map[string]any `toml:"resources"`
	Vnode             []fileVnode    `toml:"vnode"`
	Cgroups           fileCgroups    `toml:"cgroups"`
	SSH               fileSSH        `toml:"ssh"`
	UseCP             []UseCP        `toml:"usecp"`
	TransferTimeout   string         `toml:"transfer_timeout"`
	MetricsAddr       string         `toml:"metrics_addr"`
}

// fileCgroups is the [cgroups] table.
type fileCgroups struct {
	Enable      *bool  `toml:"enable"`
	Mode        string `toml:"mode"`
	Root        string `toml:"root"`
	EnforceMem  bool   `toml:"enforce_mem"`
	EnforceCpus bool   `toml:"enforce_cpus"`
}

// apply checks the table and copies it into c.
func (fc fileCgroups) apply(c *CgroupConfig) error {
	switch fc.Mode {
	case "", cgroupAuto, cgroupV1, cgroupV2, cgroupOff:
	default:
		return fmt.Errorf("cgroups.mode: %q is not one of auto, v1, v2, off", fc.Mode)
	}
	if fc.Root != "" && !strings.HasPrefix(fc.Root, "/") {
		return fmt.Errorf("cgroups.root: %q must be an absolute cgroup path", fc.Root)
	}
	c.Mode = fc.Mode
	if c.Mode == "" {
		c.Mode = cgroupAuto
	}
	if fc.Enable != nil && !*fc.Enable {
		if fc.Mode != "" && fc.Mode != cgroupOff {
			return fmt.Errorf("cgroups.enable: false contradicts mode = %q", fc.Mode)
		}
		c.Mode = cgroupOff
	}
	c.Root, c.EnforceMem, c.EnforceCpus = fc.Root, fc.EnforceMem, fc.EnforceCpus
	return nil
}

type fileTLS struct {
	CAFile   string `toml:"ca_file"`
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
}

type fileVnode struct {
	Name            string         `toml:"name"`
	Sharing         string         `toml:"sharing"`
	SortPriority    int            `toml:"sort_priority"`
	ProvisionEnable bool           `toml:"provision_enable"`
	CurrentAOE      string         `toml:"current_aoe"`
	Resources       map[string]any `toml:"resources"`
}

// DefaultConfig returns the configuration used for keys a file leaves out.
// Host and resources are probed from the running machine.
func DefaultConfig() *Config {
	cfg := &Config{
		Host:              shortHostname(),
		Spool:             "/var/spool/strata/mom",
		TmpDir:            "/var/tmp",
		KillDelay:         10 * time.Second,
		HeartbeatInterval: 2 * time.Second,
		UsageInterval:     defaultUsageInterval,
		Cgroups:           CgroupConfig{Mode: cgroupAuto},
		Transfer:          defaultTransferConfig(),
		Resources: map[string]string{
			"ncpus": strconv.Itoa(runtime.NumCPU()),
			"arch":  "linux",
		},
	}
	if mem, err := physicalMemory(); err == nil {
		cfg.Resources["mem"] = model.FormatSize(mem)
	}
	if exe, err := os.Executable(); err == nil {
		cfg.ShepherdCommand = []string{filepath.Join(filepath.Dir(exe), ShepherdExecutable)}
		cfg.HelperCommand = []string{exe, "mom-shepherd"}
	}
	return cfg
}

// LoadConfig reads a TOML file over DefaultConfig and validates the result.
func LoadConfig(path string) (*Config, error) {
	var fc fileConfig
	md, err := toml.DecodeFile(path, &fc)
	if err != nil {
		return nil, fmt.Errorf("mom config %s: %w", path, err)
	}
	for _, k := range md.Undecoded() {
		if k.String() == "secret" || k.String() == "secret_file" {
			return nil, fmt.Errorf("mom config %s: key %q is retired: agents authenticate with a host certificate now; "+
				"remove it and set [tls] ca_file, cert_file and key_file (strata tls issue --host; see docs/security.md, "+
				"\"Migrating from the shared secret\")", path, k.String())
		}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("mom config %s: unknown key %q", path, und[0].String())
	}
	cfg := DefaultConfig()
	if err := fc.apply(cfg, md); err != nil {
		return nil, fmt.Errorf("mom config %s: %w", path, err)
	}
	// Certificate paths, like the server's, are relative to the file.
	for _, p := range []*string{&cfg.TLS.CA, &cfg.TLS.Cert, &cfg.TLS.Key} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(filepath.Dir(path), *p)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mom config %s: %w", path, err)
	}
	return cfg, nil
}

// apply copies the keys the file sets into cfg.
func (fc *fileConfig) apply(cfg *Config, md toml.MetaData) error {
	set := func(dst *string, src string) {
		if src != "" {
			*dst = src
		}
	}
	set(&cfg.Server, fc.Server)
	if len(fc.Servers) > 0 {
		// Every server of a multi-server cluster: the agent talks to
		// the leader and moves on when its server fails (api/failover.go).
		cfg.Server = strings.Join(fc.Servers, ",")
	}
	set(&cfg.Host, fc.Host)
	set(&cfg.Spool, fc.Spool)
	set(&cfg.TmpDir, fc.TmpDir)
	set(&cfg.CurrentAOE, fc.CurrentAOE)
	set(&cfg.AOEFile, fc.AOEFile)
	set(&cfg.BootIDFile, fc.BootIDFile)
	set(&cfg.MetricsAddr, fc.MetricsAddr)
	cfg.RebootCommand = fc.RebootCommand
	cfg.SortPriority = fc.SortPriority
	cfg.ProvisionEnable = fc.ProvisionEnable
	cfg.TLS = pki.Files{CA: fc.TLS.CAFile, Cert: fc.TLS.CertFile, Key: fc.TLS.KeyFile}
	for _, d := range []struct {
		key string
		src string
		dst *time.Duration
	}{
		{"kill_delay", fc.KillDelay, &cfg.KillDelay},
		{"heartbeat_interval", fc.HeartbeatInterval, &cfg.HeartbeatInterval},
		{"usage_interval", fc.UsageInterval, &cfg.UsageInterval},
	} {
		if d.src == "" {
			continue
		}
		v, err := time.ParseDuration(d.src)
		if err != nil {
			return fmt.Errorf("%s: %q is not a duration (use e.g. \"10s\")", d.key, d.src)
		}
		*d.dst = v
	}
	if md.IsDefined("resources") {
		res, err := resourceStrings("resources", fc.Resources)
		if err != nil {
			return err
		}
		for k, v := range res {
			cfg.Resources[k] = v
		}
	}
	if err := fc.Cgroups.apply(&cfg.Cgroups); err != nil {
		return err
	}
	if err := applyTransfer(&cfg.Transfer, fc.SSH, fc.UseCP, fc.TransferTimeout); err != nil {
		return err
	}
	for i, fv := range fc.Vnode {
		key := fmt.Sprintf("vnode[%d]", i)
		res, err := resourceStrings(key+".resources", fv.Resources)
		if err != nil {
			return err
		}
		if _, ok := res["arch"]; !ok {
			res["arch"] = "linux"
		}
		cfg.Vnodes = append(cfg.Vnodes, VnodeConfig{
			Name: fv.Name, Sharing: fv.Sharing, SortPriority: fv.SortPriority,
			ProvisionEnable: fv.ProvisionEnable, CurrentAOE: fv.CurrentAOE, Resources: res,
		})
	}
	return nil
}

// resourceStrings converts TOML resource values to the strings the server
// stores: booleans as True/False, arrays comma-joined, sizes normalized.
func resourceStrings(table string, in map[string]any) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for _, k := range sortedKeys(in) {
		key := table + "." + k
		s, err := resourceString(in[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		switch k {
		case "mem", "vmem":
			b, err := model.ParseSize(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			s = model.FormatSize(b)
		case "ncpus", "ngpus", "nmics":
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s: %q is not a non-negative integer", key, s)
			}
		}
		out[k] = s
	}
	return out, nil
}

func resourceString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return model.FormatBool(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", fmt.Errorf("array elements must be strings, got %T", e)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("unsupported value type %T (use a string, boolean, integer or float)", v)
}

// Validate checks the configuration; errors name the offending key.
func (c *Config) Validate() error {
	switch {
	case c.Server == "":
		return fmt.Errorf("server: must be set to the server's TCP address")
	case !strings.Contains(c.Server, ":"):
		return fmt.Errorf("server: %q has no port", c.Server)
	case c.TLS.CA == "":
		return fmt.Errorf("tls.ca_file: must be set to the cluster CA bundle")
	case c.TLS.Cert == "":
		return fmt.Errorf("tls.cert_file: must be set to this host's agent certificate (strata tls issue --host)")
	case c.TLS.Key == "":
		return fmt.Errorf("tls.key_file: must be set to this host's agent key")
	case c.Host == "":
		return fmt.Errorf("host: must not be empty")
	case c.Spool == "" || !strings.HasPrefix(c.Spool, "/"):
		return fmt.Errorf("spool: %q must be an absolute path", c.Spool)
	case c.TmpDir == "" || !strings.HasPrefix(c.TmpDir, "/"):
		return fmt.Errorf("tmpdir: %q must be an absolute path", c.TmpDir)
	case c.KillDelay < 0:
		return fmt.Errorf("kill_delay: must not be negative")
	case c.HeartbeatInterval <= 0:
		return fmt.Errorf("heartbeat_interval: must be positive")
	case c.UsageInterval <= 0:
		return fmt.Errorf("usage_interval: must be positive")
	case len(c.ShepherdCommand) == 0:
		return fmt.Errorf("shepherd command: cannot determine this executable's path")
	}
	seen := map[string]bool{}
	for i, v := range c.Vnodes {
		if v.Name == "" {
			return fmt.Errorf("vnode[%d].name: must be set", i)
		}
		if seen[v.Name] {
			return fmt.Errorf("vnode[%d].name: %q is listed twice", i, v.Name)
		}
		seen[v.Name] = true
		switch v.Sharing {
		case "", "default_shared", "default_excl", "default_exclhost", "ignore_excl", "force_excl", "force_exclhost":
		default:
			return fmt.Errorf("vnode[%d].sharing: unknown value %q", i, v.Sharing)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
