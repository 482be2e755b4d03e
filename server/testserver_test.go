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
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/raftstore/manager"
	"github.com/strata-hpc/strata/server/api"
)

// testServer is a real server (Raft on disk, both listeners) run in this
// process, in a directory other users can reach, so that helper processes
// running as other uids can connect to its socket and be identified by
// the kernel, exactly as commands are.
type testServer struct {
	t      *testing.T
	dir    string
	cfg    *Config
	root   *api.Client // over the socket, as root
	helper string      // a copy of this test binary other users can run
	srv    *Server     // for tests that look inside (leader memory)
}

func startTestServer(t *testing.T, tune func(*Config)) *testServer {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run helpers as other users")
	}
	dir, err := os.MkdirTemp("", "strata-srvtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	ts := &testServer{t: t, dir: dir, helper: filepath.Join(dir, "helper")}
	if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(ts.helper, b, 0o755) != nil {
		t.Fatalf("copy test binary: %v", err)
	}
	cfg := DefaultConfig()
	cfg.Name, cfg.FastRaft, cfg.AllowRootJobs = "svr", true, true
	cfg.TLS = testTLS(t, dir)
	cfg.DataDir, cfg.Socket = filepath.Join(dir, "data"), filepath.Join(dir, "s.sock")
	cfg.APIAddr, cfg.RaftAddr = freeTCP(t), freeTCP(t)
	if tune != nil {
		tune(cfg)
	}
	ts.cfg = cfg
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ts.srv = New(cfg, io.Discard)
	go func() { ts.srv.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	ts.root = api.NewUnixClient(cfg.Socket, cfg.Name)
	// Up when it leads and has committed its configuration: a qmgr set of
	// the server's comment goes through.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := ts.root.Manage(ctx, &model.ManagerRequest{Verb: manager.Set, Object: manager.Server,
			Attrs: []model.ManagerAttr{{Name: "comment", Op: "=", Value: "test"}}})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return ts
}

// helperCmd runs this test binary's helper test as uid, in mode.
func (ts *testServer) helperCmd(uid uint32, mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(ts.helper, "-test.run=^TestServerHelperProcess$")
	cmd.Env = append(append(os.Environ(), "STRATA_HELPER_MODE="+mode, "STRATA_HELPER_SOCKET="+ts.cfg.Socket), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	return cmd
}

// asUser is a helper process that sends requests over the socket as one
// uid, one per call.
type asUser struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (ts *testServer) asUser(uid uint32) *asUser {
	ts.t.Helper()
	cmd := ts.helperCmd(uid, "requests")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		ts.t.Fatal(err)
	}
	u := &asUser{cmd: cmd, in: in, out: bufio.NewReader(out)}
	ts.t.Cleanup(func() { in.Close(); cmd.Wait() })
	return u
}

// rawReq is one request of a helper, and its answer.
type rawReq struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   string `json:"body,omitempty"`
}

type rawResp struct {
	Status int    `json:"status"`
	Code   int    `json:"code"`
	Msg    string `json:"message"`
	// Body is a successful answer's body.
	Body string `json:"body,omitempty"`
}

func (u *asUser) do(t *testing.T, r rawReq) rawResp {
	t.Helper()
	b, _ := json.Marshal(r)
	if _, err := u.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	line, err := u.out.ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	var resp rawResp
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("helper answered %q", line)
	}
	return resp
}

// sendRaw sends one request with hc and reads the status and PBS error.
func sendRaw(hc *http.Client, base string, r rawReq, bearer string) rawResp {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequest(r.Method, base+r.Path, body)
	if err != nil {
		return rawResp{Status: -1, Msg: err.Error()}
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return rawResp{Status: -1, Msg: err.Error()}
	}
	defer resp.Body.Close()
	out := rawResp{Status: resp.StatusCode}
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		json.Unmarshal(data, &out)
		out.Status = resp.StatusCode
	} else {
		out.Body = string(data)
	}
	return out
}

func unixHTTP(socket string) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}
}

// TestServerHelperProcess is not a test: it is the body of the helper
// processes the tests above start as other users.
func TestServerHelperProcess(t *testing.T) {
	mode, socket := os.Getenv("STRATA_HELPER_MODE"), os.Getenv("STRATA_HELPER_SOCKET")
	switch mode {
	case "":
		t.Skip("helper process only")
	case "requests":
		hc := unixHTTP(socket)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var r rawReq
			json.Unmarshal(sc.Bytes(), &r)
			b, _ := json.Marshal(sendRaw(hc, "http://strata", r, ""))
			fmt.Println(string(b))
		}
	case "flood":
		connFlood(socket)
	case "batchrelease":
		batchReleaseHelper(socket)
	case "qstat":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := api.NewUnixClient(socket, "t").Jobs(ctx, nil, false); err != nil {
			fmt.Printf("qstat failed: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("qstat ok")
	}
	os.Exit(0)
}

// tcpClients returns two HTTPS clients of the test server's API address
// that trust its CA: one without a certificate (an anonymous TCP caller)
// and one with an agent certificate for host.
func (ts *testServer) tcpClients(t *testing.T, host string) (anon, agent *http.Client) {
	t.Helper()
	td := filepath.Dir(ts.cfg.TLS.CAFile)
	cert, key := pki.AgentFiles(td, host)
	if _, err := pki.Issue(td, pki.RoleAgent, []string{host}, cert, key); err != nil {
		t.Fatal(err)
	}
	src, err := pki.NewSource(pki.Files{CA: ts.cfg.TLS.CAFile, Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if b, err := os.ReadFile(ts.cfg.TLS.CAFile); err != nil || !pool.AppendCertsFromPEM(b) {
		t.Fatalf("read CA: %v", err)
	}
	anonTLS := &tls.Config{RootCAs: pool, ServerName: pki.RoleServer.Name(), MinVersion: tls.VersionTLS13}
	anon = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: anonTLS}}
	agent = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: src.ClientConfig(pki.RoleServer)}}
	return anon, agent
}
