package raftstore

import (
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
)

// testTLS returns a server certificate source for a node whose data lives
// in dir, creating a cluster CA under dir/../tls (shared by the nodes of a
// test that use sibling directories) the first time.
func testTLS(t testing.TB, dir string) *pki.Source {
	t.Helper()
	tdir := filepath.Join(filepath.Dir(filepath.Clean(dir)), "tls")
	if _, err := os.Stat(filepath.Join(tdir, pki.CAFile)); err != nil {
		if err := pki.Init(tdir, []string{"127.0.0.1"}); err != nil {
			t.Fatal(err)
		}
	}
	return serverSource(t, tdir)
}

func serverSource(t testing.TB, tdir string) *pki.Source {
	t.Helper()
	src, err := pki.NewSource(pki.Files{CA: filepath.Join(tdir, pki.CAFile), Cert: filepath.Join(tdir, pki.ServerFile), Key: filepath.Join(tdir, pki.ServerKeyFile)})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func agentSource(t testing.TB, tdir, host string) *pki.Source {
	t.Helper()
	cert, key := pki.AgentFiles(tdir, host)
	if _, err := pki.Issue(tdir, pki.RoleAgent, []string{host}, cert, key); err != nil {
		t.Fatal(err)
	}
	src, err := pki.NewSource(pki.Files{CA: filepath.Join(tdir, pki.CAFile), Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTwoServersOverTLS runs two real Raft nodes on loopback over the TLS
// stream layer: they elect a leader and a command replicates to the
// follower.
func TestTwoServersOverTLS(t *testing.T) {
	root := t.TempDir()
	a := openNode(t, filepath.Join(root, "a"), freeAddr(t), 8192)
	defer a.Shutdown()
	fsm, err := NewFSM(log.New(io.Discard, "", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	bdir := filepath.Join(root, "b")
	b, err := Open(Config{DataDir: bdir, BindAddr: freeAddr(t), Fast: true, TLS: testTLS(t, bdir), LogOutput: io.Discard}, fsm)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Shutdown()
	if err := a.Raft.AddVoter(raft.ServerID(b.ID), b.transport.LocalAddr(), 0, 5*time.Second).Error(); err != nil {
		t.Fatal(err)
	}
	cfg := model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), Managers: []string{"admin"}}
	// With test timers a loaded machine can lose leadership for a
	// moment; the entry goes through whichever node leads.
	waitFor(t, "a committed entry", func() bool {
		for _, n := range []*Node{a, b} {
			if n.IsLeader() {
				if _, err := n.Apply(&SetServerConfig{Config: cfg}, 5*time.Second); err == nil {
					return true
				}
			}
		}
		return false
	})
	waitFor(t, "replication to both nodes", func() bool {
		return slices.Contains(a.FSM.State().Snapshot().Config().Managers, "admin") &&
			slices.Contains(b.FSM.State().Snapshot().Config().Managers, "admin")
	})
}

// forgedAppend sends the attack of issue 9: an AppendEntries from a
// self-declared leader of a higher term, carrying a configuration that adds
// a manager, through the given transport. It returns the transport's error.
func forgedAppend(t *testing.T, trans *raft.NetworkTransport, n *Node) error {
	t.Helper()
	stats := n.Raft.Stats()
	term, _ := strconv.ParseUint(stats["term"], 10, 64)
	lastIdx, _ := strconv.ParseUint(stats["last_log_index"], 10, 64)
	lastTerm, _ := strconv.ParseUint(stats["last_log_term"], 10, 64)
	cfg := n.FSM.State().Snapshot().Config()
	cfg.Managers = append(slices.Clone(cfg.Managers), "mallory")
	data, err := Encode(&SetServerConfig{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	req := &raft.AppendEntriesRequest{
		RPCHeader:         raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("mallory"), Addr: []byte(trans.LocalAddr())},
		Term:              term + 10,
		PrevLogEntry:      lastIdx,
		PrevLogTerm:       lastTerm,
		Entries:           []*raft.Log{{Index: lastIdx + 1, Term: term + 10, Type: raft.LogCommand, Data: data}},
		LeaderCommitIndex: lastIdx + 1,
	}
	var resp raft.AppendEntriesResponse
	return trans.AppendEntries(raft.ServerID(n.ID), n.transport.LocalAddr(), req, &resp)
}

func hasMallory(n *Node) bool {
	return slices.Contains(n.FSM.State().Snapshot().Config().Managers, "mallory")
}

func quietLogger() hclog.Logger { return hclog.New(&hclog.LoggerOptions{Output: io.Discard}) }

// TestRaftPortRefusesForgedEntries performs the attack on the Raft port
// with a plain TCP transport, with a certificate from another CA and with a
// valid agent certificate: each connection is dropped and the state does
// not change. The same forged entry sent with a server certificate of the
// cluster is applied, which shows the attack is real and only the
// credential stops it.
func TestRaftPortRefusesForgedEntries(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "srv")
	n := openNode(t, dir, freeAddr(t), 8192)
	defer n.Shutdown()
	cfg := model.ServerConfig{Name: "svr", Defs: model.BuiltinResources()}
	if _, err := n.Apply(&SetServerConfig{Config: cfg}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	tdir := filepath.Join(root, "tls")

	plain, err := raft.NewTCPTransportWithLogger("127.0.0.1:0", nil, 1, 2*time.Second, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	otherRoot := t.TempDir()
	other, err := newTLSTransport("127.0.0.1:0", testTLS(t, filepath.Join(otherRoot, "x")), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	agent, err := newTLSTransport("127.0.0.1:0", agentSource(t, tdir, "node1"), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()

	for name, trans := range map[string]*raft.NetworkTransport{"plain TCP": plain, "other CA": other, "agent certificate": agent} {
		if err := forgedAppend(t, trans, n); err == nil {
			t.Errorf("%s: forged AppendEntries got an answer", name)
		}
		if hasMallory(n) {
			t.Fatalf("%s: forged entry applied: managers = %v", name, n.FSM.State().Snapshot().Config().Managers)
		}
	}
	if !n.IsLeader() {
		t.Error("the refused attacks made the server step down")
	}

	// Control: a holder of a server certificate is a member and is
	// believed.
	member, err := newTLSTransport("127.0.0.1:0", serverSource(t, tdir), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	if err := forgedAppend(t, member, n); err != nil {
		t.Fatalf("server certificate: %v", err)
	}
	waitFor(t, "the member's entry to apply", func() bool { return hasMallory(n) })
}

// TestSlowHandshakeDoesNotBlockAccept keeps a raw TCP connection open
// without a handshake while a real peer connects: the peer is served.
func TestSlowHandshakeDoesNotBlockAccept(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "srv")
	n := openNode(t, dir, freeAddr(t), 8192)
	defer n.Shutdown()
	idle, err := net.Dial("tcp", string(n.transport.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	member, err := newTLSTransport("127.0.0.1:0", serverSource(t, filepath.Join(root, "tls")), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer member.Close()
	var resp raft.RequestVoteResponse
	start := time.Now()
	err = member.RequestVote(raft.ServerID(n.ID), n.transport.LocalAddr(), &raft.RequestVoteRequest{
		RPCHeader: raft.RPCHeader{ProtocolVersion: raft.ProtocolVersionMax, ID: []byte("peer"), Addr: []byte(member.LocalAddr())},
		Term:      0,
	}, &resp)
	if err != nil {
		t.Fatalf("request vote with an idle connection pending: %v", err)
	}
	if d := time.Since(start); d > handshakeTimeout {
		t.Fatalf("answer took %v: the idle connection held up Accept", d)
	}
}
