package mom

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// TransferConfig says how the agent copies job files to and from other
// hosts: output delivery (-o/-e host:path) and stage-in/stage-out. The
// shepherd hands it to the transfer helper (stage_helper.go), which runs
// as the job's owner.
type TransferConfig struct {
	// UseCP lists the paths that are shared with other hosts (PBS's
	// $usecp): a file on a matching host under Remote is the file under
	// Local here and is copied locally, without SSH. TOML: [[usecp]]
	// tables with host (a name, or "*.domain" / "*"), remote and local.
	UseCP []UseCP `json:"usecp,omitempty"`
	// LocalNames are the host names that mean this host: the agent's
	// host, the machine's host name (full and short) and localhost.
	// Not read from TOML.
	LocalNames []string `json:"local_names,omitempty"`
	// SSH is the [ssh] table.
	SSH SSHConfig `json:"ssh"`
	// Timeout bounds one batch of copies (all of a job's stage-in, its
	// stage-out, its output delivery); a copy still running then is
	// stopped and counts as failed. TOML: transfer_timeout ("30m").
	// Default 30 minutes.
	Timeout time.Duration `json:"timeout"`
}

// UseCP is one [[usecp]] mapping: host:remote... is local...
type UseCP struct {
	Host   string `json:"host" toml:"host"`
	Remote string `json:"remote" toml:"remote"`
	Local  string `json:"local" toml:"local"`
}

// SSHConfig is how the transfer helper reaches other hosts.
type SSHConfig struct {
	// Port is the SSH port of other hosts. TOML: ssh.port. Default 22.
	Port int `json:"port"`
	// Addresses maps host names to the address to dial ("addr" or
	// "addr:port"); the host key is still checked under the name as
	// written in the job. TOML: [ssh.addresses] table. Default: none
	// (names are resolved by the system resolver).
	Addresses map[string]string `json:"addresses,omitempty"`
	// IdentityFiles are the private keys tried, in order; %h is the
	// owner's home directory and %u the user name. TOML:
	// ssh.identity_files. Default ~/.ssh/id_ed25519, id_ecdsa, id_rsa.
	IdentityFiles []string `json:"identity_files"`
	// UserKnownHosts are the owner's known_hosts files (%h, %u).
	// TOML: ssh.user_known_hosts. Default ["%h/.ssh/known_hosts"].
	UserKnownHosts []string `json:"user_known_hosts"`
	// GlobalKnownHosts are the system's known_hosts files, which must
	// belong to root. TOML: ssh.global_known_hosts. Default
	// ["/etc/ssh/ssh_known_hosts"].
	GlobalKnownHosts []string `json:"global_known_hosts"`
	// ConnectTimeout bounds the TCP connection and SSH handshake.
	// TOML: ssh.connect_timeout ("10s"). Default 10s.
	ConnectTimeout time.Duration `json:"connect_timeout"`
}

// defaultTransferConfig is the [ssh] table's defaults.
func defaultTransferConfig() TransferConfig {
	return TransferConfig{Timeout: defaultTransferTimeout, SSH: SSHConfig{
		Port:             22,
		IdentityFiles:    []string{"%h/.ssh/id_ed25519", "%h/.ssh/id_ecdsa", "%h/.ssh/id_rsa"},
		UserKnownHosts:   []string{"%h/.ssh/known_hosts"},
		GlobalKnownHosts: []string{"/etc/ssh/ssh_known_hosts"},
		ConnectTimeout:   10 * time.Second,
	}}
}

// fileSSH is the [ssh] table as written.
type fileSSH struct {
	Port             int               `toml:"port"`
	Addresses        map[string]string `toml:"addresses"`
	IdentityFiles    []string          `toml:"identity_files"`
	UserKnownHosts   []string          `toml:"user_known_hosts"`
	GlobalKnownHosts []string          `toml:"global_known_hosts"`
	ConnectTimeout   string            `toml:"connect_timeout"`
}

// applyTransfer checks the [ssh] table, [[usecp]] entries and
// transfer_timeout into c.
func applyTransfer(c *TransferConfig, fs fileSSH, usecp []UseCP, timeout string) error {
	if timeout != "" {
		d, err := time.ParseDuration(timeout)
		if err != nil || d <= 0 {
			return fmt.Errorf("transfer_timeout: %q is not a positive duration", timeout)
		}
		c.Timeout = d
	}
	if fs.Port != 0 {
		if fs.Port < 1 || fs.Port > 65535 {
			return fmt.Errorf("ssh.port: %d is not a TCP port", fs.Port)
		}
		c.SSH.Port = fs.Port
	}
	for name, addr := range fs.Addresses {
		if !model.ValidHostName(name) {
			return fmt.Errorf("ssh.addresses: %q is not a host name", name)
		}
		host, port := addr, ""
		if h, p, ok := strings.Cut(addr, ":"); ok {
			host, port = h, p
		}
		if n, err := strconv.Atoi(port); port != "" && (err != nil || n < 1 || n > 65535) {
			return fmt.Errorf("ssh.addresses.%s: %q has a bad port", name, addr)
		}
		if !model.ValidHostName(host) {
			return fmt.Errorf("ssh.addresses.%s: %q is not host[:port]", name, addr)
		}
	}
	c.SSH.Addresses = fs.Addresses
	for _, l := range []struct {
		key string
		src []string
		dst *[]string
	}{
		{"ssh.identity_files", fs.IdentityFiles, &c.SSH.IdentityFiles},
		{"ssh.user_known_hosts", fs.UserKnownHosts, &c.SSH.UserKnownHosts},
		{"ssh.global_known_hosts", fs.GlobalKnownHosts, &c.SSH.GlobalKnownHosts},
	} {
		if l.src == nil {
			continue
		}
		for _, p := range l.src {
			if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "%h/") {
				return fmt.Errorf("%s: %q must be absolute (or start with %%h/)", l.key, p)
			}
		}
		*l.dst = l.src
	}
	if fs.ConnectTimeout != "" {
		d, err := time.ParseDuration(fs.ConnectTimeout)
		if err != nil || d <= 0 {
			return fmt.Errorf("ssh.connect_timeout: %q is not a positive duration", fs.ConnectTimeout)
		}
		c.SSH.ConnectTimeout = d
	}
	for i, u := range usecp {
		key := fmt.Sprintf("usecp[%d]", i)
		h := strings.TrimPrefix(u.Host, "*")
		if u.Host == "" || (h != "" && !model.ValidHostName(strings.TrimPrefix(h, "."))) {
			return fmt.Errorf("%s.host: %q is not a host name, *.domain or *", key, u.Host)
		}
		if !strings.HasPrefix(u.Remote, "/") || !strings.HasPrefix(u.Local, "/") {
			return fmt.Errorf("%s: remote and local must be absolute paths", key)
		}
	}
	c.UseCP = usecp
	return nil
}

// localNames are the names delivery treats as this host.
func localNames(agentHost string) []string {
	names := []string{"localhost", agentHost}
	if h, err := os.Hostname(); err == nil {
		short, _, _ := strings.Cut(h, ".")
		names = append(names, h, short)
	}
	return names
}
