//go:build e2e

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHAJoinNewServer: a fourth server started with join = true does not
// bootstrap a cluster of its own; a manager adds it with `strata operator
// raft add-peer`, it catches up with the existing state (jobs submitted
// before it existed are readable through its socket), and it takes writes
// it forwards to the leader.
func TestHAJoinNewServer(t *testing.T) {
	c := newHACluster(t, 3, 1, 1)
	before := c.submit("#!/bin/sh\nexit 0\n", "-h")
	dir4, raft4 := startJoiningServer(t, c, "server4", filepath.Join(binDir, "strata"))
	c.must("strata", "operator", "raft", "add-peer", "--id", "server4", "--address", raft4)
	waitFor(t, 10*time.Second, "four peers", func() bool {
		return len(peerTable(c)) == 4
	})
	via4 := *c
	via4.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+filepath.Join(dir4, "strata.sock"))
	waitFor(t, 20*time.Second, "server4 to serve the job submitted before it joined", func() bool {
		return via4.run("qstat", before).code == 0
	})
	after := via4.submit("#!/bin/sh\nexit 0\n", "-h")
	if r := c.run("qstat", after); r.code != 0 {
		t.Fatalf("job %s submitted through the new server is not visible: %s", after, r.stderr)
	}

	// Every server learns server4's API address from replicated state
	// (its announcement, recorded by the leader), without a change to
	// their [[peer]] tables: with server4 leading, a follower whose file
	// does not list it still forwards writes to it.
	via1 := *c
	via1.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+filepath.Join(c.dir, "server1", "strata.sock"))
	// A follower (server2) knows it only from the replicated record (the
	// leader also knows it from the announcement itself): wait for the
	// record before leadership moves.
	via2 := *c
	via2.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+filepath.Join(c.dir, "server2", "strata.sock"))
	waitFor(t, 20*time.Second, "the replicated record of server4's API address", func() bool {
		p := peerTable(&via2)["server4"]
		return len(p) > 4 && p[4] != "?"
	})
	c.must("strata", "operator", "raft", "transfer-leader", "--id", "server4")
	// Once server4 leads, server1 (a follower now) knows its address only
	// from the replicated record the new leader writes.
	waitFor(t, 20*time.Second, "server1 to see server4 lead, with its API address", func() bool {
		p := peerTable(&via1)["server4"]
		return len(p) > 4 && p[2] == "leader" && p[4] != "?"
	})
	id := via1.submit("#!/bin/sh\nexit 0\n", "-h")
	t.Logf("server4 leads; %s submitted through server1 (forwarded to server4 at %s, learnt from replicated state)", id, peerTable(&via1)["server4"][4])
}

// peerTable runs `strata operator raft list-peers` and returns each peer's
// fields (Node Address State Voter API Level) by id.
func peerTable(c *cluster) map[string][]string {
	c.t.Helper()
	m := map[string][]string{}
	out := c.must("strata", "operator", "raft", "list-peers")
	for _, l := range strings.Split(out, "\n")[1:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		f := strings.Fields(l)
		m[f[0]] = f
	}
	return m
}

// startJoiningServer writes the configuration of a new server `name` (its
// own certificate, join = true, the [[peer]] tables of server3's file plus
// its own) and starts it with the binary bin. It returns its directory
// (socket: DIR/strata.sock) and its Raft address, for add-peer.
func startJoiningServer(t *testing.T, c *cluster, name, bin string) (string, string) {
	t.Helper()
	td := filepath.Join(c.dir, "tls")
	cert, key := filepath.Join(td, "server-"+name+".pem"), filepath.Join(td, "server-"+name+"-key.pem")
	c.must("strata", "tls", "issue", "--dir", td, "--server", "--host", "127.0.0.1", "--cert", cert, "--key", key)

	port := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	api4, raft4 := port(), port()
	// Server 3's file with this server's own keys, join = true, and its
	// table added to the peers.
	b, err := os.ReadFile(filepath.Join(c.dir, "server3", "server.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir4 := filepath.Join(c.dir, name)
	os.MkdirAll(dir4, 0o755)
	var lines []string
	seen := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		k := strings.TrimSpace(strings.SplitN(l, "=", 2)[0])
		if seen[k] || strings.HasPrefix(l, "[") {
			// Only the top-level keys, which come first; the [[peer]]
			// tables after them are kept as they are.
			k = ""
		}
		seen[k] = true
		switch k {
		case "node_id":
			l = fmt.Sprintf("node_id = %q", name) + "\njoin = true"
		case "data_dir":
			l = fmt.Sprintf("data_dir = %q", filepath.Join(dir4, "data"))
		case "socket":
			l = fmt.Sprintf("socket = %q", filepath.Join(dir4, "strata.sock"))
		case "api_addr":
			l = fmt.Sprintf("api_addr = %q", api4)
		case "raft_addr":
			l = fmt.Sprintf("raft_addr = %q", raft4)
		case "metrics_addr":
			l = `metrics_addr = "127.0.0.1:0"` // server3's own is taken
		case "tls":
			l = fmt.Sprintf("tls = { ca_file = %q, cert_file = %q, key_file = %q }", filepath.Join(td, "ca.pem"), cert, key)
		}
		lines = append(lines, l)
	}
	conf := strings.Join(lines, "\n") + fmt.Sprintf("\n[[peer]]\nid = %q\nraft_addr = %q\napi_addr = %q\n", name, raft4, api4)
	path := filepath.Join(dir4, "server.toml")
	os.WriteFile(path, []byte(conf), 0o644)
	logf, _ := os.Create(filepath.Join(c.dir, name+".log"))
	srv := exec.Command(bin, "server", "--config", path)
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(c.dir, name+".log"))
			t.Logf("--- %s.log ---\n%s", name, tail(string(b), 3000))
		}
	})

	return dir4, raft4
}
