package pbscmd

import (
	"bufio"
	"os"
	"strings"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/server/api"
)

// The client configuration, /etc/pbs.conf style: KEY=VALUE lines, '#'
// comments. An environment variable of the same name wins over the file,
// as in OpenPBS. STRATA_CONF names another file.
//
//	PBS_SERVER=head1            # host[:port]; several servers comma-separated
//	STRATA_SOCKET=/var/run/strata/strata.sock  # local socket (server hosts)
//	STRATA_CA_FILE=/etc/strata/tls/ca.pem      # the cluster CA (TCP)
//	STRATA_MUNGE_SOCKET=/run/munge/munge.socket.2
const (
	// DefaultClientConf is the client configuration file.
	DefaultClientConf = "/etc/strata/strata.conf"
	// DefaultCAFile is the cluster CA bundle remote commands verify the
	// server with.
	DefaultCAFile = "/etc/strata/tls/ca.pem"
)

// clientConfKeys are the keys the file may set.
var clientConfKeys = []string{"PBS_SERVER", "PBS_DEFAULT", "STRATA_SOCKET", "STRATA_CA_FILE", "STRATA_MUNGE_SOCKET"}

// loadClientConf reads the file (missing is empty); unknown keys and
// malformed lines are ignored, as pbs_loadconf does.
func loadClientConf(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		for _, known := range clientConfKeys {
			if k == known {
				out[k] = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	return out
}

// settings looks a key up in the environment, then in the client
// configuration file.
func settings(lookup func(string) (string, bool)) func(string) string {
	path, ok := lookup("STRATA_CONF")
	if !ok || path == "" {
		path = DefaultClientConf
	}
	conf := loadClientConf(path)
	return func(key string) string {
		if v, ok := lookup(key); ok {
			return v
		}
		return conf[key]
	}
}

// Target is how commands reach the server: a local socket, or the TCP
// API of a remote server (login hosts).
type Target struct {
	Socket string // Unix socket(s); empty for TCP
	Addr   string // host[:port] list for TCP
	CAFile string
	Munge  string // munged's socket ("" is MUNGE's default)
}

// ResolveTarget decides the transport: a configured STRATA_SOCKET is the
// local socket; otherwise PBS_SERVER (host[:port]) selects TCP with MUNGE;
// with neither, the default socket.
func ResolveTarget(setting func(string) string) Target {
	if sock := setting("STRATA_SOCKET"); sock != "" {
		return Target{Socket: sock}
	}
	if addr := setting("PBS_SERVER"); addr != "" {
		ca := setting("STRATA_CA_FILE")
		if ca == "" {
			ca = DefaultCAFile
		}
		return Target{Addr: addr, CAFile: ca, Munge: setting("STRATA_MUNGE_SOCKET")}
	}
	return Target{Socket: DefaultSocket}
}

// Client returns the API client of the target.
func (t Target) Client(serverName string) *api.Client {
	if t.Socket != "" {
		return api.NewUnixClient(t.Socket, serverName)
	}
	c := api.NewRemoteClient(t.Addr, t.CAFile, &munge.Client{Socket: t.Munge})
	c.ServerName = serverName
	return c
}
