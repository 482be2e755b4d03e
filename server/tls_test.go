package server

import (
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
)

// testTLS creates a cluster PKI under dir and returns the server's [tls]
// settings.
func testTLS(t testing.TB, dir string) TLSConfig {
	t.Helper()
	td := filepath.Join(dir, "tls")
	if err := pki.Init(td, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	return TLSConfig{CAFile: filepath.Join(td, pki.CAFile), CertFile: filepath.Join(td, pki.ServerFile), KeyFile: filepath.Join(td, pki.ServerKeyFile)}
}

// TestAgentHasNoUserRights: an agent identity is no manager, operator or
// job owner, whatever the lists hold (the shared secret made it root).
func TestAgentHasNoUserRights(t *testing.T) {
	agent := &Identity{UID: -1, GID: -1, Host: "node1", Agent: true}
	cfg := &model.ServerConfig{Managers: []string{"", "@node1", "root"}, Operators: []string{"", "@node1"}}
	if isManager(agent, cfg) || isOperator(agent, cfg) {
		t.Fatal("agent has manager or operator rights")
	}
	if mayModify(agent, &model.Job{User: ""}, cfg) {
		t.Fatal("agent may modify a job")
	}
	if err := agentOf(agent, "node2"); err == nil {
		t.Fatal("node1 may act for node2")
	}
	if err := agentOf(agent, "node1"); err != nil {
		t.Fatal(err)
	}
	if err := agentOf(alice, alice.Host); err == nil {
		t.Fatal("a user passes as an agent")
	}
}
