package api_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server/api"
)

// countingEncoder stands in for munge(1) and counts how often a credential
// was asked for: an impostor must not receive one.
type countingEncoder struct{ n atomic.Int32 }

func (e *countingEncoder) Encode(context.Context, []byte) (string, error) {
	e.n.Add(1)
	return "MUNGE:test:", nil
}

// A remote command talks only to a server certificate of the cluster CA:
// a compute node's agent certificate (same CA, another role) and a
// server certificate of another CA both fail the handshake, before any
// credential is made or sent.
func TestRemoteClientRefusesImpostorServers(t *testing.T) {
	dir := t.TempDir()
	td, other := filepath.Join(dir, "tls"), filepath.Join(dir, "other")
	if err := pki.Init(td, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	if err := pki.Init(other, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	agentCert, agentKey := pki.AgentFiles(td, "node1")
	if _, err := pki.Issue(td, pki.RoleAgent, []string{"node1", "127.0.0.1"}, agentCert, agentKey); err != nil {
		t.Fatal(err)
	}
	for name, files := range map[string][2]string{
		"agent certificate of the cluster CA": {agentCert, agentKey},
		"server certificate of another CA":    {filepath.Join(other, pki.ServerFile), filepath.Join(other, pki.ServerKeyFile)},
	} {
		pair, err := tls.LoadX509KeyPair(files[0], files[1])
		if err != nil {
			t.Fatal(err)
		}
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13})
		if err != nil {
			t.Fatal(err)
		}
		var served atomic.Int32
		srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served.Add(1) })}
		go srv.Serve(ln)
		enc := &countingEncoder{}
		_, err = api.NewRemoteClient(ln.Addr().String(), filepath.Join(td, pki.CAFile), enc).Jobs(context.Background(), nil, false)
		srv.Close()
		var ce *api.ConnectError
		var he *pki.HandshakeError
		if !errors.As(err, &ce) || !errors.As(err, &he) {
			t.Errorf("%s: got %v, want a failed handshake", name, err)
		}
		if enc.n.Load() != 0 || served.Load() != 0 {
			t.Errorf("%s: %d credentials made, %d requests served", name, enc.n.Load(), served.Load())
		}
	}
}

// PBS_SERVER without a port means PBS's 15001.
func TestWithPort(t *testing.T) {
	for in, want := range map[string]string{"head1": "head1:15001", "head1:99": "head1:99", "::1": "[::1]:15001", "[::1]:7": "[::1]:7", "10.0.0.1": "10.0.0.1:15001"} {
		if got := api.WithPort(in); got != want {
			t.Errorf("WithPort(%q) = %q, want %q", in, got, want)
		}
	}
}
