// Package servertest runs a real Strata server inside a test process:
// Raft on disk (fast timeouts), the Unix socket for commands and the
// mutual-TLS API for agents, all on loopback. It is for the tests of the
// packages that talk to a server (server/api, the commands), in the manner
// of net/http/httptest; nothing in a production binary imports it.
package servertest

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server"
	"github.com/strata-hpc/strata/server/api"
)

// Server is a running server.
type Server struct {
	Config *server.Config
	// Dir holds the data directory, the socket and the cluster CA (tls/).
	Dir string
	// Root is a client over the socket: the kernel identifies it as the
	// test process's uid (root when tests run as root).
	Root *api.Client
}

// Start runs a server named "svr" until the test ends. tune, when not
// nil, adjusts the configuration first. Start returns once the server
// leads and has committed its configuration. Scheduling is off, so that
// no cycle races a test's own qrun or deletion; a test that wants cycles
// sets scheduling = true with qmgr.
func Start(t testing.TB, tune func(*server.Config)) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "strata-servertest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	td := filepath.Join(dir, "tls")
	if err := pki.Init(td, []string{"127.0.0.1"}); err != nil {
		t.Fatalf("cluster CA: %v", err)
	}
	cfg := server.DefaultConfig()
	cfg.Name, cfg.FastRaft, cfg.AllowRootJobs = "svr", true, true
	cfg.TLS = server.TLSConfig{CAFile: filepath.Join(td, pki.CAFile), CertFile: filepath.Join(td, pki.ServerFile), KeyFile: filepath.Join(td, pki.ServerKeyFile)}
	cfg.DataDir, cfg.Socket = filepath.Join(dir, "data"), filepath.Join(dir, "s.sock")
	cfg.APIAddr, cfg.RaftAddr = freeTCP(t), freeTCP(t)
	if tune != nil {
		tune(cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { server.New(cfg, io.Discard).Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	s := &Server{Config: cfg, Dir: dir, Root: api.NewUnixClient(cfg.Socket, cfg.Name)}
	// Up when a manager request commits (it needs a leader and the
	// configuration); polled with a deadline. The same request turns
	// scheduling off.
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := s.Root.Manage(ctx, &model.ManagerRequest{Verb: "set", Object: "server",
			Attrs: []model.ManagerAttr{{Name: "comment", Op: "=", Value: "servertest"}, {Name: "scheduling", Op: "=", Value: "false"}}})
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %v", err)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-done:
			t.Fatal("server stopped while starting")
		}
	}
}

// Agent returns a client of the TLS API holding an agent certificate for
// host, issued by the server's CA, as `strata mom` has.
func (s *Server) Agent(t testing.TB, host string) *api.Client {
	t.Helper()
	cert, key := pki.AgentFiles(filepath.Join(s.Dir, "tls"), host)
	return s.tlsClient(t, pki.RoleAgent, host, cert, key)
}

// Simulator returns a client of the TLS API holding a simulator
// certificate for prefix (strata mom --simulate): it may speak for the
// hosts <prefix>-<digits>.
func (s *Server) Simulator(t testing.TB, prefix string) *api.Client {
	t.Helper()
	cert, key := pki.SimulatorFiles(filepath.Join(s.Dir, "tls"), prefix)
	return s.tlsClient(t, pki.RoleSimulator, prefix, cert, key)
}

// tlsClient issues a certificate of role for name into cert and key and
// returns a TLS API client holding it.
func (s *Server) tlsClient(t testing.TB, role pki.Role, name, cert, key string) *api.Client {
	t.Helper()
	td := filepath.Join(s.Dir, "tls")
	if _, err := pki.Issue(td, role, []string{name}, cert, key); err != nil {
		t.Fatalf("%s certificate: %v", role, err)
	}
	src, err := pki.NewSource(pki.Files{CA: filepath.Join(td, pki.CAFile), Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return api.NewTCPClient(s.Config.APIAddr, src)
}

func freeTCP(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
