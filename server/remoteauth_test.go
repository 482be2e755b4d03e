package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/internal/munge/mungetest"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/raftstore/manager"
	"github.com/strata-hpc/strata/server/api"
)

// Remote commands with MUNGE (remoteauth.go). Each test below performs an
// attack on the TCP API as a user of a login host could, against a real
// server and a real munged.

// startMungeServer runs a server whose TCP API accepts MUNGE credentials
// decoded by a private munged, and returns it with that munged's socket.
func startMungeServer(t *testing.T, tune func(*Config)) (*testServer, string) {
	t.Helper()
	sock := mungetest.Start(t)
	ts := startTestServer(t, func(cfg *Config) {
		cfg.Munge = MungeConfig{Enable: true, Socket: sock}
		if tune != nil {
			tune(cfg)
		}
	})
	return ts, sock
}

// remoteAs is the client of a login host's user uid (root mints the
// credential, as munge --uid lets root do).
func remoteAs(ts *testServer, sock string, uid int) *api.Client {
	return api.NewRemoteClient(ts.cfg.APIAddr, ts.cfg.TLS.CAFile, mungetest.As{Socket: sock, UID: uid, GID: uid})
}

func submitReq() *api.SubmitRequest {
	return &api.SubmitRequest{Token: fmt.Sprint(time.Now().UnixNano()), Name: "remote", Hold: "u", Argv: []string{"/bin/true"}, Workdir: "/tmp"}
}

func wantPerm(t *testing.T, what string, err error, detail string) {
	t.Helper()
	pe, ok := model.AsPBSError(err)
	if !ok || pe.Code != model.PBSEPerm || !strings.Contains(pe.Msg, "Unauthorized Request") || !strings.Contains(pe.Msg, detail) {
		t.Fatalf("%s: got %v, want Unauthorized Request %s", what, err, detail)
	}
}

// A user of a login host submits, queries and deletes its job; the owner,
// uid, gid and Submit_Host come from the credential.
func TestRemoteUserSubmitsWithMunge(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	ctx := context.Background()
	nobody := remoteAs(ts, sock, 65534)
	id, err := nobody.Submit(ctx, submitReq(), 0)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := nobody.Jobs(ctx, []string{id}, false)
	if err != nil || len(jobs.Jobs) != 1 {
		t.Fatalf("qstat over TCP: %v %+v", err, jobs)
	}
	j := jobs.Jobs[0]
	host := hostOf(ctx, net.ParseIP("127.0.0.1"))
	if j.User != "nobody" || j.UID != 65534 || j.GID != 65534 || j.Owner != "nobody@"+host || j.SubmitHost != host {
		t.Fatalf("job identity: user %s uid %d gid %d owner %s submit_host %s", j.User, j.UID, j.GID, j.Owner, j.SubmitHost)
	}
	// Another remote user may not delete it; its owner may.
	wantPerm(t, "qdel by another user", remoteAs(ts, sock, 1).Delete(ctx, id, api.DeleteRequest{}), "")
	if err := nobody.Delete(ctx, id, api.DeleteRequest{}); err != nil {
		t.Fatalf("owner's qdel: %v", err)
	}
}

// The TCP API of a server without [munge] refuses a valid credential, and
// every server refuses a request with no credential or a bogus scheme.
func TestRemoteWithoutMungeIsUnauthorized(t *testing.T) {
	sock := mungetest.Start(t)
	ts := startTestServer(t, nil) // [munge] enable is off
	_, err := remoteAs(ts, sock, 65534).Jobs(context.Background(), nil, false)
	wantPerm(t, "credential on a server without munge", err, "[munge] enable is off")

	ts2, _ := startMungeServer(t, nil)
	c := dialRemote(t, ts2)
	st, pe := c.send(t, "GET", "/v1/jobs", "", nil)
	if st != http.StatusForbidden || pe.Code != model.PBSEPerm {
		t.Fatalf("no credential: %d %+v", st, pe)
	}
	c = dialRemote(t, ts2)
	st, pe = c.send(t, "GET", "/v1/jobs", "", map[string]string{"Authorization": "Basic cm9vdDo="})
	if st != http.StatusForbidden || !strings.Contains(pe.Msg, "unknown authorization scheme") {
		t.Fatalf("basic auth: %d %+v", st, pe)
	}
}

// Headers and body fields that name another user change nothing: the
// identity is the credential's.
func TestRemoteForgedIdentityHeadersIgnored(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	enc := mungetest.As{Socket: sock, UID: 65534, GID: 65534}
	c := dialRemote(t, ts)
	body, _ := json.Marshal(map[string]any{"token": "forged", "argv": []string{"/bin/true"}, "workdir": "/tmp", "hold": "u",
		"user": "root", "uid": 0, "owner": "root@svr", "euser": "root", "submit_host": "trusted.example"})
	hdr := map[string]string{"X-Remote-User": "root", "X-Strata-User": "root", "X-Forwarded-For": "10.0.0.1", "Remote-User": "0"}
	hdr["Authorization"] = "MUNGE " + c.cred(t, enc, "POST", "/v1/jobs", string(body))
	st, pe := c.send(t, "POST", "/v1/jobs", string(body), hdr)
	if st != http.StatusOK {
		t.Fatalf("submit: %d %+v", st, pe)
	}
	jobs, err := ts.root.Jobs(context.Background(), nil, false)
	if err != nil || len(jobs.Jobs) != 1 {
		t.Fatalf("jobs: %v", err)
	}
	if j := jobs.Jobs[0]; j.User != "nobody" || j.UID != 65534 || j.SubmitHost == "trusted.example" {
		t.Fatalf("forged fields believed: user %s uid %d submit_host %s", j.User, j.UID, j.SubmitHost)
	}
}

// X-Strata-On-Behalf-Of is believed from server certificates only: a
// MUNGE-authenticated user sending it is refused.
func TestRemoteOnBehalfOfRefused(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	enc := mungetest.As{Socket: sock, UID: 65534, GID: 65534}
	c := dialRemote(t, ts)
	hdr := map[string]string{OnBehalfHeader: `{"User":"root","UID":0,"GID":0,"Host":"svr"}`,
		"Authorization": "MUNGE " + c.cred(t, enc, "GET", "/v1/jobs", "")}
	st, pe := c.send(t, "GET", "/v1/jobs", "", hdr)
	if st != http.StatusForbidden || !strings.Contains(pe.Msg, "only a server of the cluster may forward") {
		t.Fatalf("on-behalf-of from a user: %d %+v", st, pe)
	}
}

// A captured credential is worthless: sent again on its connection munged
// reports the replay; on another connection, or with another request, it
// is not bound to it.
func TestRemoteCredentialReplayAndTransplant(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	enc := mungetest.As{Socket: sock, UID: 65534, GID: 65534}
	c := dialRemote(t, ts)
	cred := c.cred(t, enc, "GET", "/v1/jobs", "")
	hdr := map[string]string{"Authorization": "MUNGE " + cred}
	if st, pe := c.send(t, "GET", "/v1/jobs", "", hdr); st != http.StatusOK {
		t.Fatalf("first use: %d %+v", st, pe)
	}
	if st, pe := c.send(t, "GET", "/v1/jobs", "", hdr); st != http.StatusForbidden || !strings.Contains(pe.Msg, "Replayed credential") {
		t.Fatalf("replay on the same connection: %d %+v", st, pe)
	}
	// A fresh credential bound to GET /v1/jobs, attached to a deletion.
	c2 := dialRemote(t, ts)
	other := c2.cred(t, enc, "GET", "/v1/jobs", "")
	st, pe := c2.send(t, "POST", "/v1/jobs/1.svr/delete", "{}", map[string]string{"Authorization": "MUNGE " + other})
	if st != http.StatusForbidden || !strings.Contains(pe.Msg, "not bound to this request") {
		t.Fatalf("credential moved to another request: %d %+v", st, pe)
	}
	// A fresh credential made for one connection, used on another.
	c3, c4 := dialRemote(t, ts), dialRemote(t, ts)
	moved := c3.cred(t, enc, "GET", "/v1/jobs", "")
	st, pe = c4.send(t, "GET", "/v1/jobs", "", map[string]string{"Authorization": "MUNGE " + moved})
	if st != http.StatusForbidden || !strings.Contains(pe.Msg, "not bound to this request") {
		t.Fatalf("credential moved to another connection: %d %+v", st, pe)
	}
}

// An expired credential is refused (munged's TTL), and so is one from a
// munged with another key.
func TestRemoteExpiredAndForeignCredentials(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	c := dialRemote(t, ts)
	cred := c.cred(t, mungetest.As{Socket: sock, UID: 65534, GID: 65534, TTL: 1}, "GET", "/v1/jobs", "")
	// The attack needs the credential to outlive its TTL: munged counts
	// whole seconds, so it is expired once two have passed.
	<-time.After(2100 * time.Millisecond)
	st, pe := c.send(t, "GET", "/v1/jobs", "", map[string]string{"Authorization": "MUNGE " + cred})
	if st != http.StatusForbidden || !strings.Contains(pe.Msg, "Expired credential") {
		t.Fatalf("expired credential: %d %+v", st, pe)
	}
	foreign := mungetest.Start(t) // another realm's key
	_, err := remoteAs(ts, foreign, 65534).Jobs(context.Background(), nil, false)
	wantPerm(t, "credential of another key", err, "munge:")
}

// Oversized and malformed credentials are refused before unmunge runs.
func TestRemoteOversizedCredential(t *testing.T) {
	ts, _ := startMungeServer(t, nil)
	for _, cred := range []string{"MUNGE:" + strings.Repeat("A", munge.MaxCredential) + ":", "not-a-credential", ""} {
		c := dialRemote(t, ts)
		st, pe := c.send(t, "GET", "/v1/jobs", "", map[string]string{"Authorization": "MUNGE " + cred})
		if st != http.StatusForbidden || pe.Code != model.PBSEPerm {
			t.Fatalf("credential of %d bytes: %d %+v", len(cred), st, pe)
		}
	}
	// Beyond max_header_bytes the HTTP server refuses the request itself.
	c := dialRemote(t, ts)
	st, _ := c.send(t, "GET", "/v1/jobs", "", map[string]string{"Authorization": "MUNGE " + strings.Repeat("A", 128<<10)})
	if st != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("128 KiB header: status %d", st)
	}
}

// Root of a login host is not root of the cluster: it manages the server
// only when managers names root@host, and may not touch other users' jobs.
func TestRemoteRootIsNoManager(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	ctx := context.Background()
	root := remoteAs(ts, sock, 0)
	set := &model.ManagerRequest{Verb: manager.Set, Object: manager.Server, Attrs: []model.ManagerAttr{{Name: "comment", Op: "=", Value: "remote root"}}}
	wantPerm(t, "qmgr by a login host's root", root.Manage(ctx, set), "")
	id, err := remoteAs(ts, sock, 65534).Submit(ctx, submitReq(), 0)
	if err != nil {
		t.Fatal(err)
	}
	wantPerm(t, "qdel of another user's job by a login host's root", root.Delete(ctx, id, api.DeleteRequest{}), "")
	host := hostOf(ctx, net.ParseIP("127.0.0.1"))
	// allow_root_jobs (set by the test server) is for the server's host:
	// a login host's root submits only when acl_roots names root@host.
	_, err = root.Submit(ctx, submitReq(), 0)
	wantPerm(t, "qsub by a login host's root", err, "root may not submit")
	roots := &model.ManagerRequest{Verb: manager.Set, Object: manager.Server, Attrs: []model.ManagerAttr{{Name: "acl_roots", Op: "=", Value: "root@" + host}}}
	if err := ts.root.Manage(ctx, roots); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Submit(ctx, submitReq(), 0); err != nil {
		t.Fatalf("qsub by root@%s listed in acl_roots: %v", host, err)
	}
	grant := &model.ManagerRequest{Verb: manager.Set, Object: manager.Server, Attrs: []model.ManagerAttr{{Name: "managers", Op: "+=", Value: "root@other.example"}}}
	if err := ts.root.Manage(ctx, grant); err != nil {
		t.Fatal(err)
	}
	wantPerm(t, "qmgr by root of a host not in managers", root.Manage(ctx, set), "")
	if !isManager(&Identity{User: "root", UID: 0, Host: "svr"}, &model.ServerConfig{Managers: []string{"root"}}) ||
		isManager(&Identity{User: "root", UID: 0, Host: "login1", Remote: true}, &model.ServerConfig{Managers: []string{"root", "root@*.example"}}) {
		t.Fatal(`a bare "root" in managers must mean the server's root only`)
	}
	grant.Attrs[0].Value = "root@" + host
	if err := ts.root.Manage(ctx, grant); err != nil {
		t.Fatal(err)
	}
	if err := root.Manage(ctx, set); err != nil {
		t.Fatalf("qmgr by root@%s listed in managers: %v", host, err)
	}
	if err := root.Delete(ctx, id, api.DeleteRequest{}); err != nil {
		t.Fatalf("qdel by a manager: %v", err)
	}
}

// acl_hosts with acl_host_enable: a login host not listed may request
// nothing; the server's own socket is always served.
func TestRemoteACLHosts(t *testing.T) {
	ts, sock := startMungeServer(t, nil)
	ctx := context.Background()
	host := hostOf(ctx, net.ParseIP("127.0.0.1"))
	acl := func(v string) {
		err := ts.root.Manage(ctx, &model.ManagerRequest{Verb: manager.Set, Object: manager.Server, Attrs: []model.ManagerAttr{
			{Name: "acl_host_enable", Op: "=", Value: "true"}, {Name: "acl_hosts", Op: "=", Value: v}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	acl("login9.example,svr")
	nobody := remoteAs(ts, sock, 65534)
	_, err := nobody.Jobs(ctx, nil, false)
	wantPerm(t, "qstat from a host not in acl_hosts", err, "not in acl_hosts")
	if _, err := ts.root.Jobs(ctx, nil, false); err != nil {
		t.Fatalf("local socket under acl_hosts: %v", err)
	}
	acl("login9.example," + host)
	id, err := nobody.Submit(ctx, submitReq(), 0)
	if err != nil {
		t.Fatalf("qsub from a listed host: %v", err)
	}
	if jobs, err := nobody.Jobs(ctx, []string{id}, false); err != nil || jobs.Jobs[0].SubmitHost != host {
		t.Fatalf("Submit_Host: %v %+v", err, jobs)
	}
}

// An unauthenticated client that trickles its headers is disconnected
// after read_header_timeout; one that stalls the TLS handshake too.
func TestRemoteSlowloris(t *testing.T) {
	ts, _ := startMungeServer(t, func(cfg *Config) { cfg.Limits.ReadHeaderTimeout = Duration{300 * time.Millisecond} })
	c := dialRemote(t, ts)
	c.tc.Write([]byte("GET /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: MUNGE ")) // never ends
	c.tc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c.tc); err != nil {
		t.Fatalf("trickling client not disconnected: %v", err)
	}
	raw, err := net.Dial("tcp", ts.cfg.APIAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.Write([]byte{0x16, 0x03, 0x01}) // the start of a ClientHello, then nothing
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(raw); err != nil {
		t.Fatalf("stalled handshake not closed: %v", err)
	}
}

// remoteConn is one TLS connection to the TCP API, as a login host's
// command (or an attacker) makes it.
type remoteConn struct {
	tc  *tls.Conn
	br  *bufio.Reader
	ekm []byte
}

func dialRemote(t *testing.T, ts *testServer) *remoteConn {
	t.Helper()
	pem, err := os.ReadFile(ts.cfg.TLS.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	tc, err := tls.Dial("tcp", ts.cfg.APIAddr, &tls.Config{RootCAs: pool, ServerName: pki.RoleServer.Name(), MinVersion: tls.VersionTLS13})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tc.Close() })
	ekm, err := api.ChannelBinding(tc.ConnectionState())
	if err != nil {
		t.Fatal(err)
	}
	return &remoteConn{tc: tc, br: bufio.NewReader(tc), ekm: ekm}
}

// cred returns a credential bound to a request on this connection.
func (c *remoteConn) cred(t *testing.T, enc api.Encoder, method, uri, body string) string {
	t.Helper()
	cred, err := enc.Encode(context.Background(), api.RequestBinding(c.ekm, method, uri, []byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// send writes one request (keeping the connection open) and reads the
// answer: its status and PBS error, if any.
func (c *remoteConn) send(t *testing.T, method, uri, body string, hdr map[string]string) (int, model.PBSError) {
	t.Helper()
	req, err := http.NewRequest(method, "https://strata"+uri, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if err := req.Write(c.tc); err != nil {
		t.Fatal(err)
	}
	c.tc.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var pe model.PBSError
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &pe)
	return resp.StatusCode, pe
}

// A server asked to accept credentials it cannot decode does not start.
func TestMungeWithoutUnmungeDoesNotStart(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.TLS = testTLS(t, dir)
	cfg.DataDir, cfg.Socket = dir+"/data", dir+"/s.sock"
	cfg.APIAddr, cfg.RaftAddr = freeTCP(t), freeTCP(t)
	cfg.Munge = MungeConfig{Enable: true, Unmunge: dir + "/no-unmunge"}
	err := New(cfg, io.Discard).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "config [munge]") {
		t.Fatalf("server started without unmunge: %v", err)
	}
}
