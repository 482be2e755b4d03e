package server

import (
	"crypto/tls"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/pki"
)

// TestTLSCallersKeyedByCertificate performs the starvation attack on
// forwarding: callers without a certificate from the same IP as the
// servers (on one machine, everyone is 127.0.0.1) hold the per-host
// connection cap. A server peer (a forwarding follower) and an agent are
// keyed by their certificates, so they are still served.
func TestTLSCallersKeyedByCertificate(t *testing.T) {
	ts := startTestServer(t, func(c *Config) { c.Limits.MaxConnsPerHost, c.Limits.MaxInflightPerHost = 2, 2 })
	anon, agent := ts.tcpClients(t, "node1")
	anonConf := anon.Transport.(*http.Transport).TLSClientConfig
	for i := 0; i < 2; i++ {
		c, err := tls.Dial("tcp", ts.cfg.APIAddr, anonConf)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	// The anonymous IP is at its cap: one more is closed unanswered.
	waitCond(t, "a third anonymous connection to be refused", func() bool {
		resp, err := anon.Get("https://" + ts.cfg.APIAddr + "/v1/server")
		if err == nil {
			resp.Body.Close()
		}
		anon.CloseIdleConnections()
		return err != nil
	})
	td := filepath.Dir(ts.cfg.TLS.CAFile)
	cert, key := filepath.Join(td, "peer.pem"), filepath.Join(td, "peer-key.pem")
	if _, err := pki.Issue(td, pki.RoleServer, []string{"127.0.0.1"}, cert, key); err != nil {
		t.Fatal(err)
	}
	peer := newForwarder(mustSource(t, pki.Files{CA: ts.cfg.TLS.CAFile, Cert: cert, Key: key}))
	req, _ := http.NewRequest(http.MethodGet, "https://"+ts.cfg.APIAddr+"/v1/server", nil)
	req.Header.Set(OnBehalfHeader, `{"User":"nobody","UID":65534,"GID":65534,"Host":"h"}`)
	resp, err := peer.Do(req)
	if err != nil {
		t.Fatalf("a server peer was refused while anonymous callers hold the IP's cap: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("server peer: HTTP %d", resp.StatusCode)
	}
	resp, err = agent.Get("https://" + ts.cfg.APIAddr + "/v1/server")
	if err != nil {
		t.Fatalf("an agent was refused while anonymous callers hold the IP's cap: %v", err)
	}
	resp.Body.Close()
}

func mustSource(t *testing.T, f pki.Files) *pki.Source {
	t.Helper()
	s, err := pki.NewSource(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func waitCond(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
