package pki

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func initDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tls")
	if err := Init(dir, []string{"127.0.0.1", "localhost"}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func serverFiles(dir string) Files {
	return Files{CA: filepath.Join(dir, CAFile), Cert: filepath.Join(dir, ServerFile), Key: filepath.Join(dir, ServerKeyFile)}
}

func agentFiles(t *testing.T, dir, host string) Files {
	t.Helper()
	cert, key := AgentFiles(dir, host)
	if _, err := Issue(dir, RoleAgent, []string{host}, cert, key); err != nil {
		t.Fatal(err)
	}
	return Files{CA: filepath.Join(dir, CAFile), Cert: cert, Key: key}
}

func source(t *testing.T, f Files) *Source {
	t.Helper()
	s, err := NewSource(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInitModesAndRefusesOverwrite(t *testing.T) {
	dir := initDir(t)
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", fi.Mode().Perm())
	}
	for _, k := range []string{CAKeyFile, ServerKeyFile} {
		fi, _ := os.Stat(filepath.Join(dir, k))
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", k, fi.Mode().Perm())
		}
	}
	if err := Init(dir, nil); !errors.Is(err, ErrExists) {
		t.Fatalf("second init: %v", err)
	}
}

func TestRoles(t *testing.T) {
	dir := initDir(t)
	srv := source(t, serverFiles(dir))
	if r, h := RoleOf(srv.Leaf()); r != RoleServer || h != "server.strata" {
		t.Errorf("server cert: %s %s", r, h)
	}
	ag := source(t, agentFiles(t, dir, "node1"))
	if r, h := RoleOf(ag.Leaf()); r != RoleAgent || h != "node1" {
		t.Errorf("agent cert: %s %s", r, h)
	}
	c, k := AgentFiles(dir, "x")
	for _, bad := range []string{"server.strata", "", "a b", "agent.strata"} {
		if _, err := Issue(dir, RoleAgent, []string{bad}, c, k); err == nil {
			t.Errorf("agent certificate issued for %q", bad)
		}
	}
}

// handshake runs one TLS handshake between a listener with cfg and a
// client with ccfg over loopback and returns both sides' errors.
func handshake(t *testing.T, cfg, ccfg *tls.Config) (srvErr, cliErr error, peer tls.ConnectionState) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			srvErr = err
			return
		}
		tc := tls.Server(c, cfg)
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		srvErr = tc.Handshake()
		peer = tc.ConnectionState()
		tc.Close()
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	tc := tls.Client(c, ccfg)
	tc.SetDeadline(time.Now().Add(5 * time.Second))
	cliErr = tc.Handshake()
	if cliErr == nil {
		// TLS 1.3: the server's verdict on the client certificate
		// arrives with the first read.
		_, cliErr = tc.Read(make([]byte, 1))
		if errors.Is(cliErr, io.EOF) {
			cliErr = nil
		}
	}
	tc.Close()
	<-done
	return srvErr, cliErr, peer
}

func TestServerRequiresRole(t *testing.T) {
	dir := initDir(t)
	srv := source(t, serverFiles(dir))
	ag := source(t, agentFiles(t, dir, "node1"))
	other := source(t, serverFiles(initDir(t)))

	raftCfg := srv.ServerConfig(tls.RequireAndVerifyClientCert, RoleServer)
	if se, ce, _ := handshake(t, raftCfg, srv.ClientConfig(RoleServer)); se != nil || ce != nil {
		t.Fatalf("server to server: %v / %v", se, ce)
	}
	if se, _, _ := handshake(t, raftCfg, ag.ClientConfig(RoleServer)); se == nil {
		t.Error("agent certificate accepted where a server is required")
	}
	if se, _, _ := handshake(t, raftCfg, other.ClientConfig(RoleServer)); se == nil {
		t.Error("other CA's server accepted")
	}
	noCert := &tls.Config{RootCAs: srv.ClientConfig(RoleServer).RootCAs, ServerName: "server.strata"}
	if se, _, _ := handshake(t, raftCfg, noCert); se == nil {
		t.Error("client without certificate accepted")
	}

	apiCfg := srv.ServerConfig(tls.VerifyClientCertIfGiven, RoleAgent)
	se, ce, st := handshake(t, apiCfg, ag.ClientConfig(RoleServer))
	if se != nil || ce != nil {
		t.Fatalf("agent to api: %v / %v", se, ce)
	}
	if r, h, ok := PeerOf(&st); !ok || r != RoleAgent || h != "node1" {
		t.Errorf("peer = %s %s %v", r, h, ok)
	}
	if se, ce, st := handshake(t, apiCfg, noCert); se != nil || ce != nil {
		t.Errorf("api without certificate: %v / %v", se, ce)
	} else if _, _, ok := PeerOf(&st); ok {
		t.Error("anonymous client has a role")
	}

	// An agent's certificate cannot act as a server.
	fake := ag.ServerConfig(tls.VerifyClientCertIfGiven, RoleAgent)
	if _, ce, _ := handshake(t, fake, ag.ClientConfig(RoleServer)); ce == nil {
		t.Error("agent certificate accepted as a server")
	}
}

// TestReloadOnChange reissues the server certificate in place and adds a
// new CA to the bundle: the running Source serves the new certificate and
// trusts the new CA without being recreated.
func TestReloadOnChange(t *testing.T) {
	dir := initDir(t)
	files := serverFiles(dir)
	srv := source(t, files)
	before := srv.Leaf().SerialNumber
	if _, err := Issue(dir, RoleServer, nil, files.Cert, files.Key); err != nil {
		t.Fatal(err)
	}
	// Modification times can be equal within the file system's
	// granularity; the size check may not differ either, so force a
	// later mtime as a rotation minutes later would have.
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(files.Cert, later, later)
	os.Chtimes(files.Key, later, later)
	if after := srv.Leaf().SerialNumber; after.Cmp(before) == 0 {
		t.Fatal("certificate not reloaded after the files changed")
	}

	// Rotation overlap: a second CA appended to the bundle is trusted.
	dir2 := initDir(t)
	ag2 := source(t, agentFiles(t, dir2, "node9"))
	cfg := srv.ServerConfig(tls.RequireAndVerifyClientCert, RoleAgent)
	if se, _, _ := handshake(t, cfg, ag2.ClientConfig(RoleServer)); se == nil {
		t.Fatal("agent of an untrusted CA accepted")
	}
	a, _ := os.ReadFile(files.CA)
	b, _ := os.ReadFile(filepath.Join(dir2, CAFile))
	if err := os.WriteFile(files.CA, append(a, b...), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(files.CA, later, later)
	// The agent trusts the first CA too, so it accepts the server.
	a2, _ := os.ReadFile(filepath.Join(dir2, CAFile))
	os.WriteFile(filepath.Join(dir2, CAFile), append(a2, a...), 0o644)
	os.Chtimes(filepath.Join(dir2, CAFile), later, later)
	if se, ce, _ := handshake(t, cfg, ag2.ClientConfig(RoleServer)); se != nil || ce != nil {
		t.Fatalf("after adding the CA: %v / %v", se, ce)
	}

	// A half-done rotation (key replaced, certificate not yet) keeps the
	// old pair.
	cur := srv.Leaf().SerialNumber
	other := initDir(t)
	kb, _ := os.ReadFile(filepath.Join(other, ServerKeyFile))
	os.WriteFile(files.Key, kb, 0o600)
	os.Chtimes(files.Key, later.Add(time.Second), later.Add(time.Second))
	if srv.Leaf().SerialNumber.Cmp(cur) != 0 {
		t.Fatal("mismatched key replaced the certificate")
	}
}
