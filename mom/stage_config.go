package mom

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

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
