package pki

import (
	"crypto/tls"
	"path/filepath"
	"testing"
)

// TestSimulatorRole: a simulator certificate carries its prefix as its
// host and the simulator role only; it is no agent (a server accepting
// only agents refuses its handshake) and its reach is P-<digits>.
func TestSimulatorRole(t *testing.T) {
	dir := initDir(t)
	cert, key := SimulatorFiles(dir, "sim")
	if _, err := Issue(dir, RoleSimulator, []string{"sim"}, cert, key); err != nil {
		t.Fatal(err)
	}
	simFiles := Files{CA: filepath.Join(dir, CAFile), Cert: cert, Key: key}
	sim := source(t, simFiles)
	if r, h := RoleOf(sim.Leaf()); r != RoleSimulator || h != "sim" {
		t.Fatalf("simulator cert: %s %s", r, h)
	}
	for _, bad := range []string{"", "server.strata", "x.strata", "a b", "sim*"} {
		c, k := SimulatorFiles(dir, "bad")
		if _, err := Issue(dir, RoleSimulator, []string{bad}, c, k); err == nil {
			t.Errorf("simulator certificate issued for prefix %q", bad)
		}
	}
	// An API listening for agents only refuses the simulator.
	srv := source(t, serverFiles(dir))
	if srvErr, cliErr, _ := handshake(t, srv.ServerConfig(tls.RequireAndVerifyClientCert, RoleAgent), sim.ClientConfig(RoleServer)); srvErr == nil && cliErr == nil {
		t.Fatal("an agents-only listener accepted a simulator certificate")
	}
	if srvErr, cliErr, _ := handshake(t, srv.ServerConfig(tls.RequireAndVerifyClientCert, RoleAgent, RoleSimulator), sim.ClientConfig(RoleServer)); srvErr != nil || cliErr != nil {
		t.Fatalf("simulator handshake: %v %v", srvErr, cliErr)
	}
	for host, want := range map[string]bool{
		"sim-1": true, "sim-00001": true, "sim-123456789": true,
		"sim": false, "sim-": false, "sim-1234567890": false, "sim-1x": false, "sim--1": false,
		"simx-1": false, "xsim-1": false, "sim-1.node1": false, "node1": false, "SIM-1": false,
	} {
		if got := SimulatedHost("sim", host); got != want {
			t.Errorf("SimulatedHost(sim, %q) = %v, want %v", host, got, want)
		}
	}
	if SimulatedHost("", "-1") {
		t.Error("an empty prefix reaches host -1")
	}
}
