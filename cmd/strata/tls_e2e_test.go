//go:build e2e

package main

// Issue 9, items 1 and 9: the attacks on the cluster's TCP transports,
// performed against a real local cluster (which runs the real PKI that
// `strata cluster start` generates).

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/raftstore/manager"
	"github.com/strata-hpc/strata/server/api"
)

// serverKey reads a top-level string key of the cluster's server.toml.
func (c *cluster) serverKey(key string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, "server1", "server.toml"))
	if err != nil {
		c.t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + key + ` = "([^"]*)"`).FindSubmatch(b)
	if m == nil {
		c.t.Fatalf("server.toml has no %s", key)
	}
	return string(m[1])
}

// certs loads a certificate of the cluster's PKI.
func (c *cluster) certs(cert, key string) *pki.Source {
	c.t.Helper()
	td := filepath.Join(c.dir, "tls")
	src, err := pki.NewSource(pki.Files{CA: filepath.Join(td, pki.CAFile), Cert: cert, Key: key})
	if err != nil {
		c.t.Fatal(err)
	}
	return src
}

func (c *cluster) agentCerts(host string) *pki.Source {
	cert, key := pki.AgentFiles(filepath.Join(c.dir, "tls"), host)
	return c.certs(cert, key)
}

// attackerStream is a raft.StreamLayer that dials with a client
// certificate, as an attacker holding it would; it does not care who the
// server is.
type attackerStream struct {
	net.Listener
	certs *pki.Source
}

func (s attackerStream) Dial(addr raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	cfg := s.certs.ClientConfig(pki.RoleServer)
	cfg.InsecureSkipVerify = true
	return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, "tcp", string(addr), cfg)
}

func tlsTransport(t *testing.T, certs *pki.Source) *raft.NetworkTransport {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream: attackerStream{Listener: ln, certs: certs}, MaxPool: 1, Timeout: 2 * time.Second, Logger: quiet(),
	})
	t.Cleanup(func() { trans.Close() })
	return trans
}

// forgeManager performs the raft attack through trans: it probes the
// server for its term and last index with a heartbeat from a made-up
// leader, then sends an AppendEntries of a higher term that appends a
// qmgr command making mallory a manager, committed at once.
func forgeManager(trans *raft.NetworkTransport, target string) error {
	addr := raft.ServerAddress(target)
	hdr := raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("mallory"), Addr: []byte(trans.LocalAddr())}
	var probe raft.AppendEntriesResponse
	if err := trans.AppendEntries("", addr, &raft.AppendEntriesRequest{RPCHeader: hdr}, &probe); err != nil {
		return err
	}
	data, err := raftstore.Encode(&raftstore.Manage{Request: model.ManagerRequest{Verb: manager.Set, Object: manager.Server,
		Attrs: []model.ManagerAttr{{Name: "managers", Op: "+=", Value: "mallory@*"}}}, Now: time.Now().Unix()})
	if err != nil {
		return err
	}
	term := probe.Term + 1
	var resp raft.AppendEntriesResponse
	err = trans.AppendEntries("", addr, &raft.AppendEntriesRequest{
		RPCHeader: hdr, Term: term, PrevLogEntry: probe.LastLog, PrevLogTerm: probe.Term,
		Entries:           []*raft.Log{{Index: probe.LastLog + 1, Term: term, Type: raft.LogCommand, Data: data}},
		LeaderCommitIndex: probe.LastLog + 1,
	}, &resp)
	if err == nil && !resp.Success {
		return errors.New("append refused by raft")
	}
	return err
}

func quiet() hclog.Logger { return hclog.New(&hclog.LoggerOptions{Output: io.Discard}) }

// TestRaftPortRefusesForgedManager: a local user connects to raft_addr and
// sends AppendEntries that would add a manager — with a plain Raft TCP
// transport, with a server certificate of another CA and with a valid
// agent certificate of this cluster. Each connection is dropped, and
// `qmgr -c 'p s'` is unchanged; the server keeps working. A holder of the
// cluster's server certificate does get the entry in, which shows the
// attack itself works and only the credential stops it.
func TestRaftPortRefusesForgedManager(t *testing.T) {
	c := startCluster(t, 1, 1)
	raftAddr := c.serverKey("raft_addr")
	before := c.must("qmgr", "-c", "p s")

	plain, err := raft.NewTCPTransportWithLogger("127.0.0.1:0", nil, 1, 2*time.Second, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	otherDir := filepath.Join(t.TempDir(), "other")
	if err := pki.Init(otherDir, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	otherCA, err := pki.NewSource(pki.Files{CA: filepath.Join(otherDir, pki.CAFile), Cert: filepath.Join(otherDir, pki.ServerFile), Key: filepath.Join(otherDir, pki.ServerKeyFile)})
	if err != nil {
		t.Fatal(err)
	}
	attackers := []struct {
		name  string
		trans *raft.NetworkTransport
	}{
		{"plain TCP", plain},
		{"server certificate of another CA", tlsTransport(t, otherCA)},
		{"agent certificate of this cluster", tlsTransport(t, c.agentCerts("node1"))},
	}
	for _, a := range attackers {
		if err := forgeManager(a.trans, raftAddr); err == nil {
			t.Errorf("%s: the raft port answered", a.name)
		}
		if after := c.must("qmgr", "-c", "p s"); after != before {
			t.Fatalf("%s: server configuration changed:\n%s", a.name, after)
		}
	}
	id := c.submit("#!/bin/sh\ntrue\n")
	c.waitState(id, 30*time.Second, "F")
	if b, _ := os.ReadFile(filepath.Join(c.dir, "server1.log")); !strings.Contains(string(b), "raft: refused connection") {
		t.Error("server log does not record the refused connections")
	}

	// Control: with the cluster's server certificate the same bytes are
	// a member's and go in.
	td := filepath.Join(c.dir, "tls")
	member := tlsTransport(t, c.certs(filepath.Join(td, pki.ServerFile), filepath.Join(td, pki.ServerKeyFile)))
	if err := forgeManager(member, raftAddr); err != nil {
		t.Fatalf("control with the server certificate: %v", err)
	}
	waitFor(t, 10*time.Second, "the member's entry", func() bool {
		return strings.Contains(c.must("qmgr", "-c", "p s"), "mallory")
	})
}

// TestTCPAPIRefusesSecretAndStrangers: the TCP API no longer takes the
// shared secret. Plain HTTP with a bearer token and HTTPS without a client
// certificate are refused (the latter with Unauthorized Request).
func TestTCPAPIRefusesSecretAndStrangers(t *testing.T) {
	c := startCluster(t, 1, 1)
	apiAddr := c.serverKey("api_addr")
	const secret = "0123456789abcdef0123456789abcdef0123456789abcdef"

	req, _ := http.NewRequest("POST", "http://"+apiAddr+"/v1/manage", strings.NewReader(`{"verb":"set","object":"server","attrs":[{"name":"managers","op":"+=","value":"mallory@*"}]}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			t.Fatalf("plain HTTP with the secret accepted: %s", body)
		}
	}

	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/manage", `{"verb":"set","object":"server","attrs":[{"name":"managers","op":"+=","value":"mallory@*"}]}`},
		{"GET", "/v1/jobs", ""},
		{"POST", "/v1/agent/register", `{"host":"node1","vnodes":[{"name":"node1"}]}`},
	} {
		req, _ := http.NewRequest(r.method, "https://"+apiAddr+r.path, strings.NewReader(r.body))
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := anon.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", r.method, r.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "Unauthorized Request") {
			t.Errorf("%s %s without a certificate: %d %s", r.method, r.path, resp.StatusCode, body)
		}
	}
	if strings.Contains(c.must("qmgr", "-c", "p s"), "mallory") {
		t.Fatal("manager added")
	}
}

func isPerm(err error) bool {
	pe, ok := model.AsPBSError(err)
	return ok && pe.Code == model.PBSEPerm && strings.HasPrefix(pe.Msg, "Unauthorized Request")
}

// TestAgentIsWhoItsCertificateSays: an agent holding node1's certificate
// cannot register, heartbeat or fetch work as node2, cannot take node2's
// vnode, cannot report events for a job running on node2, cannot call
// manager or user routes (so cannot read other hosts' jobs and scripts).
// Nothing changes; node1's own requests still work.
func TestAgentIsWhoItsCertificateSays(t *testing.T) {
	c := startCluster(t, 2, 1)
	ctx := context.Background()
	node1 := api.NewTCPClient(c.serverKey("api_addr"), c.agentCerts("node1"))

	id := c.submit("#!/bin/sh\nsleep 300\n", "-l", "select=1:ncpus=1:host=node2")
	j := c.waitState(id, 30*time.Second, "R")
	if !strings.HasPrefix(str(j["exec_host"]), "node2") {
		t.Fatalf("job on %v, want node2", j["exec_host"])
	}
	runCount := int(j["run_count"].(float64))
	nodesBefore := c.must("pbsnodes", "-a")
	before := c.must("qmgr", "-c", "p s")

	vnode := []api.VnodeSpec{{Name: "node2", Resources: map[string]string{"ncpus": "64"}}}
	attacks := []struct {
		name string
		do   func() error
	}{
		{"register as node2", func() error {
			_, err := node1.Register(ctx, &api.RegisterRequest{Host: "node2", BootID: "x", Vnodes: vnode})
			return err
		}},
		{"register node2's vnode under node1", func() error {
			_, err := node1.Register(ctx, &api.RegisterRequest{Host: "node1", BootID: "x", Vnodes: vnode})
			return err
		}},
		{"heartbeat as node2", func() error { return node1.Heartbeat(ctx, &api.HeartbeatRequest{Host: "node2"}) }},
		{"fetch node2's work", func() error {
			_, err := node1.Work(ctx, "node2", 0, time.Second)
			return err
		}},
		{"end node2's job, reporting as node1", func() error {
			return node1.Events(ctx, &api.EventsRequest{Host: "node1", Events: []api.JobEvent{{JobID: id, Kind: api.EventEnded, Run: runCount}}})
		}},
		{"end node2's job, reporting as node2", func() error {
			return node1.Events(ctx, &api.EventsRequest{Host: "node2", Events: []api.JobEvent{{JobID: id, Kind: api.EventEnded, Run: runCount}}})
		}},
		{"offline node2 through a hook action", func() error {
			return node1.HookAction(ctx, &api.HookActionRequest{Host: "node2", Hook: "h", Action: api.HookOffline})
		}},
		{"provision report for node2", func() error {
			return node1.ProvisionReport(ctx, &api.ProvisionReport{Host: "node2", Attempt: 1})
		}},
		{"set server attributes", func() error {
			return node1.Manage(ctx, &model.ManagerRequest{Verb: manager.Set, Object: manager.Server, Attrs: []model.ManagerAttr{{Name: "managers", Op: "+=", Value: "mallory@*"}}})
		}},
		{"list jobs", func() error {
			_, err := node1.Jobs(ctx, []string{id}, false)
			return err
		}},
		{"delete node2's job", func() error { return node1.Delete(ctx, id, api.DeleteRequest{}) }},
	}
	for _, a := range attacks {
		if err := a.do(); !isPerm(err) {
			t.Errorf("%s: err = %v, want Unauthorized Request", a.name, err)
		}
	}
	if after := c.must("qmgr", "-c", "p s"); after != before {
		t.Errorf("server configuration changed:\n%s", after)
	}
	if after := c.must("pbsnodes", "-a"); after != nodesBefore {
		t.Errorf("vnodes changed:\nbefore:\n%s\nafter:\n%s", nodesBefore, after)
	}
	if j := c.job(id); j["job_state"] != "R" {
		t.Errorf("node2's job is %v", j["job_state"])
	}

	// node1's own work answers, without node2's job or its script.
	w, err := node1.Work(ctx, "node1", 0, time.Second)
	if err != nil {
		t.Fatalf("node1's own work: %v", err)
	}
	for _, wj := range w.Jobs {
		if wj.ID == id {
			t.Errorf("node1 received node2's job %s", id)
		}
	}
	c.must("qdel", id)
}

// TestMomRefusesAnotherHostsCertificate: an agent configured with another
// host's certificate does not start, and says why.
func TestMomRefusesAnotherHostsCertificate(t *testing.T) {
	dir := t.TempDir()
	td := filepath.Join(dir, "tls")
	if err := pki.Init(td, nil); err != nil {
		t.Fatal(err)
	}
	cert, key := pki.AgentFiles(td, "node2")
	if _, err := pki.Issue(td, pki.RoleAgent, []string{"node2"}, cert, key); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "mom.toml")
	os.WriteFile(conf, []byte(`server = "127.0.0.1:1"
host = "node1"
spool = "`+filepath.Join(dir, "spool")+`"
tls = { ca_file = "`+filepath.Join(td, pki.CAFile)+`", cert_file = "`+cert+`", key_file = "`+key+`" }
`), 0o644)
	out, err := exec.Command(filepath.Join(binDir, "strata"), "mom", "--config", conf).CombinedOutput()
	if err == nil || !strings.Contains(string(out), `certificate is for agent "node2", but this agent is host "node1"`) {
		t.Fatalf("mom with node2's certificate: %v %s", err, out)
	}
}

// TestClusterStartConvertsSecretCluster: a cluster directory of the
// shared-secret release (DIR/secret, secret_file in the configs, no
// DIR/tls) is converted to TLS by the next `cluster start` once stopped;
// while its processes run, the start refuses and says what to do.
func TestClusterStartConvertsSecretCluster(t *testing.T) {
	c := startCluster(t, 1, 1)
	id := c.submit("#!/bin/sh\ntrue\n")
	c.waitState(id, 30*time.Second, "F")
	strata := filepath.Join(binDir, "strata")

	// Make it look like the earlier release wrote it.
	secret := filepath.Join(c.dir, "secret")
	os.WriteFile(secret, []byte("0123456789abcdef\n"), 0o600)
	tlsLine := regexp.MustCompile(`(?m)^tls = \{.*\}$`)
	configs := []string{filepath.Join(c.dir, "server1", "server.toml"), filepath.Join(c.dir, "node1", "mom.toml")}
	oldify := func() {
		for _, p := range configs {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, tlsLine.ReplaceAll(b, []byte(`secret_file = "`+secret+`"`)), 0o644)
		}
		os.RemoveAll(filepath.Join(c.dir, "tls"))
	}
	oldify()
	out, err := exec.Command(strata, "cluster", "start", "--dir", c.dir).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "run strata cluster stop --dir") {
		t.Fatalf("start of a running shared-secret cluster: %v %s", err, out)
	}
	if out, err := exec.Command(strata, "cluster", "stop", "--dir", c.dir).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, out)
	}
	// The stopped daemons of the old configuration would not start.
	out, err = exec.Command(strata, "server", "--config", configs[0]).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "retired") {
		t.Fatalf("server with secret_file: %v %s", err, out)
	}
	c.restart()
	for _, p := range configs {
		b, _ := os.ReadFile(p)
		if !tlsLine.Match(b) || strings.Contains(string(b), "secret") {
			t.Errorf("%s not converted:\n%s", p, b)
		}
	}
	if _, err := os.Stat(secret); err == nil {
		t.Error("DIR/secret still there")
	}
	// Same data, new transport: the history survived and jobs run.
	c.waitState(id, 10*time.Second, "F")
	c.waitState(c.submit("#!/bin/sh\ntrue\n"), 30*time.Second, "F")
}

// serverSerial is the serial number of the certificate the API serves now.
func serverSerial(t *testing.T, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
}

// TestCertificateRotationWithoutRestart follows docs/security.md on a
// running cluster: a reissued server certificate is served at once, a new
// CA added to the bundle is trusted at once, and certificates of the new
// CA work for agents and the server, all without restarting a daemon.
func TestCertificateRotationWithoutRestart(t *testing.T) {
	c := startCluster(t, 1, 1)
	apiAddr := c.serverKey("api_addr")
	td := filepath.Join(c.dir, "tls")
	serverPid := c.pidOf("server1")
	ctx := context.Background()

	// Reissue the server certificate in place.
	before := serverSerial(t, apiAddr)
	if _, err := pki.Issue(td, pki.RoleServer, []string{"127.0.0.1"}, filepath.Join(td, pki.ServerFile), filepath.Join(td, pki.ServerKeyFile)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the reissued certificate to be served", func() bool { return serverSerial(t, apiAddr) != before })

	// A new CA: its agent certificate is refused until the CA joins the
	// bundle, then accepted.
	d2 := filepath.Join(t.TempDir(), "ca2")
	if err := pki.Init(d2, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	cert, key := pki.AgentFiles(d2, "node1")
	if _, err := pki.Issue(d2, pki.RoleAgent, []string{"node1"}, cert, key); err != nil {
		t.Fatal(err)
	}
	oldCA, _ := os.ReadFile(filepath.Join(td, pki.CAFile))
	newCA, _ := os.ReadFile(filepath.Join(d2, pki.CAFile))
	bundle := append(append([]byte{}, oldCA...), newCA...)
	os.WriteFile(filepath.Join(d2, "bundle.pem"), bundle, 0o644)
	newAgent, err := pki.NewSource(pki.Files{CA: filepath.Join(d2, "bundle.pem"), Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	client := api.NewTCPClient(apiAddr, newAgent)
	if _, err := client.Work(ctx, "node1", 0, time.Second); err == nil {
		t.Fatal("certificate of a CA not in the bundle accepted")
	}
	tmp := filepath.Join(td, "bundle.tmp")
	os.WriteFile(tmp, bundle, 0o644)
	os.Rename(tmp, filepath.Join(td, pki.CAFile))
	waitFor(t, 10*time.Second, "the new CA to be trusted", func() bool {
		_, err := api.NewTCPClient(apiAddr, newAgent).Work(ctx, "node1", 0, time.Second)
		return err == nil
	})

	// The server moves to the new CA; the running agent (old CA
	// certificate, bundle with both) keeps working.
	os.WriteFile(filepath.Join(d2, pki.CAFile), bundle, 0o644)
	if _, err := pki.Issue(d2, pki.RoleServer, []string{"127.0.0.1"}, filepath.Join(td, pki.ServerFile), filepath.Join(td, pki.ServerKeyFile)); err != nil {
		t.Fatal(err)
	}
	id := c.submit("#!/bin/sh\ntrue\n")
	c.waitState(id, 30*time.Second, "F")
	// A fresh agent process makes new handshakes: old-CA certificate
	// against the new-CA server, each trusting the bundle.
	c.kill9("node1")
	c.restart()
	id = c.submit("#!/bin/sh\ntrue\n")
	c.waitState(id, 30*time.Second, "F")
	if serverSerial(t, apiAddr) == before {
		t.Fatal("server certificate not replaced")
	}
	if c.pidOf("server1") != serverPid {
		t.Fatal("the server restarted")
	}
}
