package clustercmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server/api"
)

// createServers writes the configuration of a cluster's n servers
// (server1..serverN). One server is the embedded single-voter cluster of
// earlier releases; three or five form a Raft cluster bootstrapped from
// [[peer]] tables, each server with its own server-role certificate
// (DIR/tls/server-serverI.pem) for the mutual TLS of Raft and forwarding.
func createServers(dir, name string, n int, extra []byte) ([]Process, error) {
	type srv struct{ name, dir, api, raft, sock, metrics string }
	var srvs []srv
	for i := 1; i <= n; i++ {
		api, err := freePort(dir)
		if err != nil {
			return nil, err
		}
		raft, err := freePort(dir)
		if err != nil {
			return nil, err
		}
		metrics, err := freePort(dir)
		if err != nil {
			return nil, err
		}
		s := srv{name: fmt.Sprintf("server%d", i), api: api, raft: raft, metrics: metrics}
		s.dir = filepath.Join(dir, s.name)
		s.sock = filepath.Join(s.dir, "strata.sock")
		srvs = append(srvs, s)
	}
	var peers strings.Builder
	if n > 1 {
		peers.WriteString("\n# The servers of this cluster (high availability, docs/ha.md).\n")
		for _, s := range srvs {
			fmt.Fprintf(&peers, "[[peer]]\nid = %q\nraft_addr = %q\napi_addr = %q\n\n", s.name, s.raft, s.api)
		}
	}
	var procs []Process
	for _, s := range srvs {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return nil, err
		}
		tlsLine := serverTLS(dir)
		nodeID := ""
		if n > 1 {
			var err error
			if tlsLine, err = issueServerCert(dir, s.name); err != nil {
				return nil, err
			}
			nodeID = fmt.Sprintf("node_id = %q\n", s.name)
		}
		conf := fmt.Sprintf(`# Local cluster server (written by strata cluster start).
name = %q
%sdata_dir = %q
socket = %q
api_addr = %q
raft_addr = %q
metrics_addr = %q
web = true
%s
fast_raft = true
allow_root_jobs = true
heartbeat_interval = "1s"
node_down_after = "5s"
node_fail_requeue = "30s"
`, name, nodeID, filepath.Join(s.dir, "data"), s.sock, s.api, s.raft, s.metrics, tlsLine)
		if len(extra) > 0 {
			conf += "\n# Appended from --server-config.\n" + string(extra) + "\n"
		}
		// Tables last: top-level keys of --server-config stay top-level.
		conf += peers.String()
		path := filepath.Join(s.dir, "server.toml")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			return nil, err
		}
		procs = append(procs, Process{Name: s.name, Role: "server", Config: path, Addr: s.api, Socket: s.sock, Metrics: s.metrics, Log: filepath.Join(dir, s.name+".log")})
	}
	return procs, nil
}

// issueServerCert gives one server of a multi-server cluster its own
// server-role certificate and returns its [tls] line.
func issueServerCert(dir, name string) (string, error) {
	td := tlsDir(dir)
	cert, key := filepath.Join(td, "server-"+name+".pem"), filepath.Join(td, "server-"+name+"-key.pem")
	if _, err := pki.Issue(td, pki.RoleServer, []string{"127.0.0.1", "localhost"}, cert, key); err != nil {
		return "", fmt.Errorf("cluster PKI: %w", err)
	}
	return fmt.Sprintf("tls = { ca_file = %q, cert_file = %q, key_file = %q }", filepath.Join(td, pki.CAFile), cert, key), nil
}

// servers returns the server processes of a layout.
func (l *Layout) servers() []Process {
	var out []Process
	for _, p := range l.Procs {
		if p.Role == "server" {
			out = append(out, p)
		}
	}
	return out
}

// sockets returns every server's Unix socket, comma-separated: the form
// STRATA_SOCKET takes for a multi-server cluster (server/api/failover.go).
func (l *Layout) sockets() string {
	var out []string
	for _, p := range l.servers() {
		s := p.Socket
		if s == "" {
			s = l.Socket // a layout written before multi-server clusters
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return l.Socket
	}
	return strings.Join(out, ",")
}

// apiAddrs returns every server's TCP API address, for the agents.
func (l *Layout) apiAddrs() []string {
	var out []string
	for _, p := range l.servers() {
		out = append(out, p.Addr)
	}
	return out
}

// raftRole asks one server for its Raft role over its socket.
func raftRole(ctx context.Context, socket string, running bool) string {
	if !running {
		return "down"
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	info, err := api.NewUnixClient(socket, "").Server(ctx)
	switch {
	case err != nil:
		return "down"
	case info.Raft != nil:
		return info.Raft.State
	case info.Leader:
		return "leader"
	}
	return "follower"
}
