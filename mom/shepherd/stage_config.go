package shepherd

import (
	"os"
	"strings"
	"time"
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

// LocalNames are the names delivery treats as this host.
func LocalNames(agentHost string) []string {
	names := []string{"localhost", agentHost}
	if h, err := os.Hostname(); err == nil {
		short, _, _ := strings.Cut(h, ".")
		names = append(names, h, short)
	}
	return names
}
