package mom

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mom.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	p := writeConfig(t, `
server = "127.0.0.1:15001"
host = "node01"
spool = "/tmp/strata-spool"
kill_delay = "3s"
heartbeat_interval = "500ms"
sort_priority = 5
provision_enable = true
current_aoe = "rhel8"

[resources]
ncpus = 16
mem = "64GB"
ngpus = 2
aoe = ["rhel8", "sles15"]
fast_disk = true
speed = 2.5
rack = "r12"

[tls]
ca_file = "/etc/strata/tls/ca.pem"
cert_file = "/etc/strata/tls/agent-node01.pem"
key_file = "/etc/strata/tls/agent-node01-key.pem"
`)
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TLS.Cert != "/etc/strata/tls/agent-node01.pem" || cfg.TLS.CA != "/etc/strata/tls/ca.pem" || cfg.Host != "node01" || cfg.KillDelay != 3*time.Second || cfg.HeartbeatInterval != 500*time.Millisecond {
		t.Errorf("cfg = %+v", cfg)
	}
	if cfg.TmpDir != "/var/tmp" {
		t.Errorf("tmpdir default = %q", cfg.TmpDir)
	}
	want := map[string]string{
		"ncpus": "16", "mem": "64gb", "ngpus": "2", "arch": "linux",
		"aoe": "rhel8,sles15", "fast_disk": "True", "speed": "2.5", "rack": "r12",
	}
	for k, v := range want {
		if cfg.Resources[k] != v {
			t.Errorf("resources.%s = %q, want %q", k, cfg.Resources[k], v)
		}
	}
	specs := cfg.vnodeSpecs()
	if len(specs) != 1 || specs[0].Name != "node01" || specs[0].Priority != 5 || !specs[0].ProvEnable || specs[0].CurrentAOE != "rhel8" {
		t.Errorf("vnode specs = %+v", specs)
	}
}

func TestLoadConfigVnodes(t *testing.T) {
	p := writeConfig(t, `
server = "srv:15001"
tls = { ca_file = "/c.pem", cert_file = "/a.pem", key_file = "/k.pem" }
[[vnode]]
name = "node01[0]"
[vnode.resources]
ncpus = 8
[[vnode]]
name = "node01[1]"
sharing = "force_excl"
[vnode.resources]
ncpus = 8
ngpus = 1
`)
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	specs := cfg.vnodeSpecs()
	if len(specs) != 2 || specs[1].Name != "node01[1]" || specs[1].Sharing != "force_excl" || specs[1].Resources["ngpus"] != "1" || specs[0].Resources["arch"] != "linux" {
		t.Errorf("vnode specs = %+v", specs)
	}
}

func TestLoadConfigErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct{ text, key string }{
		{`tls = { ca_file = "/c.pem", cert_file = "/a.pem", key_file = "/k.pem" }`, "server"},
		{`server = "a:1"`, "tls.ca_file"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\" }", "tls.cert_file"},
		// The shared secret of earlier releases is refused with the way out.
		{"server = \"a:1\"\nsecret = \"x\"", "security.md"},
		{"server = \"a:1\"\nsecret_file = \"/s\"", "key \"secret_file\" is retired"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\nkill_delay = \"soon\"", "kill_delay"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\nheartbeat = \"2s\"", "heartbeat"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\n[resources]\nmem = \"lots\"", "resources.mem"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\n[resources]\nncpus = -1", "resources.ncpus"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\nspool = \"relative\"", "spool"},
		{"server = \"a:1\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\n[[vnode]]\nsharing = \"excl\"", "vnode[0].name"},
	} {
		_, err := LoadConfig(writeConfig(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("config %q: error %v does not name %q", tc.text, err, tc.key)
		}
	}
}

func TestLoadConfigCgroups(t *testing.T) {
	base := "server = \"127.0.0.1:15001\"\ntls = { ca_file = \"/c.pem\", cert_file = \"/a.pem\", key_file = \"/k.pem\" }\n"
	cfg, err := LoadConfig(writeConfig(t, base))
	if err != nil || cfg.Cgroups != (CgroupConfig{Mode: cgroupAuto}) {
		t.Fatalf("default cgroups = %+v (%v)", cfg.Cgroups, err)
	}
	cfg, err = LoadConfig(writeConfig(t, base+"[cgroups]\nmode = \"v1\"\nroot = \"/strata.slice\"\nenforce_mem = true\nenforce_cpus = true\n"))
	if err != nil || cfg.Cgroups != (CgroupConfig{Mode: cgroupV1, Root: "/strata.slice", EnforceMem: true, EnforceCpus: true}) {
		t.Fatalf("cgroups = %+v (%v)", cfg.Cgroups, err)
	}
	cfg, err = LoadConfig(writeConfig(t, base+"[cgroups]\nenable = false\n"))
	if err != nil || cfg.Cgroups.Mode != cgroupOff {
		t.Fatalf("enable = false: %+v (%v)", cfg.Cgroups, err)
	}
	for text, want := range map[string]string{
		"mode = \"v3\"":                 "cgroups.mode",
		"root = \"relative\"":           "cgroups.root",
		"enable = false\nmode = \"v2\"": "cgroups.enable",
		"enforce_vmem = true":           "unknown key",
	} {
		if _, err := LoadConfig(writeConfig(t, base+"[cgroups]\n"+text+"\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

// TestLoadConfigTransfer: the [ssh] table and [[usecp]] mappings, their
// defaults, and the errors that name the key.
func TestLoadConfigTransfer(t *testing.T) {
	base := `
server = "127.0.0.1:15001"
[tls]
ca_file = "ca.pem"
cert_file = "a.pem"
key_file = "a-key.pem"
`
	cfg, err := LoadConfig(writeConfig(t, base))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Transfer.Timeout != 30*time.Minute {
		t.Errorf("transfer_timeout default %s", cfg.Transfer.Timeout)
	}
	if s := cfg.Transfer.SSH; s.Port != 22 || s.ConnectTimeout != 10*time.Second ||
		strings.Join(s.IdentityFiles, ",") != "%h/.ssh/id_ed25519,%h/.ssh/id_ecdsa,%h/.ssh/id_rsa" ||
		strings.Join(s.UserKnownHosts, ",") != "%h/.ssh/known_hosts" || strings.Join(s.GlobalKnownHosts, ",") != "/etc/ssh/ssh_known_hosts" {
		t.Errorf("defaults %+v", s)
	}
	cfg, err = LoadConfig(writeConfig(t, base+`
[ssh]
port = 2222
connect_timeout = "3s"
identity_files = ["/etc/strata/userkeys/%u/id_ed25519"]
user_known_hosts = []
[ssh.addresses]
login1 = "10.0.0.5"
login2 = "10.0.0.6:2200"

[[usecp]]
host = "*.cluster.example"
remote = "/home/"
local = "/home/"

[[usecp]]
host = "fs1"
remote = "/export/scratch/"
local = "/scratch/"
`))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Transfer.SSH
	if s.Port != 2222 || s.ConnectTimeout != 3*time.Second || s.Addresses["login2"] != "10.0.0.6:2200" || s.IdentityFiles[0] != "/etc/strata/userkeys/%u/id_ed25519" {
		t.Errorf("ssh %+v", s)
	}
	if s.UserKnownHosts == nil || len(s.UserKnownHosts) != 0 {
		t.Errorf("user_known_hosts = [] must mean none, not the default: %#v", s.UserKnownHosts)
	}
	if u := cfg.Transfer.UseCP; len(u) != 2 || u[1] != (UseCP{Host: "fs1", Remote: "/export/scratch/", Local: "/scratch/"}) {
		t.Errorf("usecp %+v", u)
	}
	if _, err := LoadConfig(writeConfig(t, "transfer_timeout = \"-1s\"\n"+base)); err == nil || !strings.Contains(err.Error(), "transfer_timeout: ") {
		t.Errorf("bad transfer_timeout: %v", err)
	}
	if c, err := LoadConfig(writeConfig(t, "transfer_timeout = \"2h\"\n"+base)); err != nil || c.Transfer.Timeout != 2*time.Hour {
		t.Errorf("transfer_timeout 2h: %v", err)
	}
	for _, tc := range []struct{ text, want string }{
		{"[ssh]\nport = 70000\n", "ssh.port"},
		{"[ssh.addresses]\n\"-oProxyCommand=x\" = \"1.2.3.4\"\n", "ssh.addresses"},
		{"[ssh.addresses]\nlogin = \"a b\"\n", "ssh.addresses.login"},
		{"[ssh]\nidentity_files = [\"id_rsa\"]\n", "ssh.identity_files"},
		{"[ssh]\nconnect_timeout = \"soon\"\n", "ssh.connect_timeout"},
		{"[[usecp]]\nhost = \"a b\"\nremote = \"/x/\"\nlocal = \"/x/\"\n", "usecp[0].host"},
		{"[[usecp]]\nhost = \"*\"\nremote = \"x/\"\nlocal = \"/x/\"\n", "usecp[0]"},
	} {
		_, err := LoadConfig(writeConfig(t, base+tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one naming %s", tc.text, err, tc.want)
		}
	}
}
