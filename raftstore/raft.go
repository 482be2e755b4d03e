package raftstore

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"go.etcd.io/bbolt"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
)

// Config wires one server's Raft node.
type Config struct {
	// DataDir holds raft.db (log and stable store), snapshots/ and node-id.
	DataDir string
	// BindAddr is the Raft transport's TCP address (host:port). Other
	// servers of a cluster reach this one there.
	BindAddr string
	// Bootstrap makes a server with no existing state start a one-server
	// cluster of itself (the embedded default). Multi-server clusters add
	// voters from the leader.
	Bootstrap bool
	// SnapshotThreshold is how many log entries trigger a snapshot; with
	// TrailingLogs it bounds replay time after a restart.
	SnapshotThreshold uint64
	SnapshotInterval  time.Duration
	TrailingLogs      uint64
	// LogOutput receives Raft's own log lines.
	LogOutput io.Writer
	// Fast shrinks the election timers for tests and the local cluster.
	Fast bool
	// Timeout, when set, is the heartbeat and election timeout (the
	// leader lease is half of it); 0 means DefaultTimeout.
	Timeout time.Duration
	// LocalID is this server's Raft id (node_id); empty means the random
	// id kept in DataDir/node-id (a single-server cluster).
	LocalID string
	// Peers, when given, is the initial configuration a new multi-server
	// cluster bootstraps with: every server is started with the same list,
	// so whichever bootstraps first, they agree (membership.go).
	Peers []raft.Server
	// TLS holds the cluster CA and this server's certificate: the Raft
	// transport accepts and dials only servers of the same cluster
	// (tls_transport.go). Required.
	TLS *pki.Source
}

// Node is a running Raft member with its FSM.
type Node struct {
	Raft      *raft.Raft
	FSM       *FSM
	ID        string
	store     *raftboltdb.BoltStore
	transport *raft.NetworkTransport
	snaps     raft.SnapshotStore
}

// DefaultTimeout is Strata's heartbeat and election timeout when none is
// configured. hashicorp/raft's own 1s is tuned for WANs; on a LAN (RTT well
// under a millisecond) 500ms still leaves a silent leader more than a
// hundred heartbeat intervals (Timeout/10) before followers call an
// election, and halves failover (measured: a SIGKILLed leader's successor
// accepts qsub after 0.8-1.6s instead of 1.6-3.2s). The price: a leader
// stalled longer than the lease (Timeout/2, e.g. a VM paused or a disk
// stuck for 250ms) steps down and an election follows. Slow or congested
// networks should set raft_timeout = "1s" or more.
const DefaultTimeout = 500 * time.Millisecond

// ErrNotLeader is returned by Apply on a follower.
var ErrNotLeader = errors.New("not the leader")

// logCacheSize is how many recent log entries stay decoded in memory,
// where applying (followers read what they appended) and replication to a
// follower that keeps up find them without reading bolt. It holds whole
// entries, so its cost is that of the largest entries: one ApplyPlan of a
// cycle at cluster size is megabytes, and 512 of them (hashicorp's usual
// size) could pin gigabytes. 128 is two full batches of appended entries
// (MaxAppendEntries 64); a follower further behind reads bolt.
const logCacheSize = 128

// Open starts the Raft node: FSM, transport, bolt log/stable store,
// snapshot store, then bootstrap when the data directory is new.
func Open(cfg Config, fsm *FSM) (*Node, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	id, err := nodeID(cfg.DataDir, cfg.LocalID)
	if err != nil {
		return nil, err
	}
	out := cfg.LogOutput
	if out == nil {
		out = os.Stderr
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft", Output: out, Level: hclog.Warn})

	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(id)
	rc.Logger = logger
	if cfg.SnapshotThreshold > 0 {
		rc.SnapshotThreshold = cfg.SnapshotThreshold
	}
	if cfg.SnapshotInterval > 0 {
		rc.SnapshotInterval = cfg.SnapshotInterval
	}
	if cfg.TrailingLogs > 0 {
		rc.TrailingLogs = cfg.TrailingLogs
	}
	// Followers learn that an entry committed from the leader's next
	// append; when no write follows, that append comes after CommitTimeout
	// (Raft's default 50ms). A follower answering a forwarded write waits
	// for it (read-your-writes), so it is kept short. Each follower then
	// gets an append every 10-20ms even when idle: measured on the local
	// cluster, 6% of a core on the leader against 4% with 50ms, for 5x the
	// submission throughput through followers.
	rc.CommitTimeout = 10 * time.Millisecond
	// Group commit: up to this many waiting applies share one fsync.
	rc.MaxAppendEntries = 512
	rc.BatchApplyCh = true
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Timeout > 0 {
		rc.HeartbeatTimeout = cfg.Timeout
		rc.ElectionTimeout = cfg.Timeout
		rc.LeaderLeaseTimeout = cfg.Timeout / 2
	}
	if cfg.Fast {
		rc.HeartbeatTimeout = 200 * time.Millisecond
		rc.ElectionTimeout = 200 * time.Millisecond
		rc.LeaderLeaseTimeout = 100 * time.Millisecond
	}

	trans, err := newTLSTransport(cfg.BindAddr, cfg.TLS, logger)
	if err != nil {
		return nil, fmt.Errorf("raft transport on %s: %w", cfg.BindAddr, err)
	}
	store, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(cfg.DataDir, "raft.db"), BoltOptions: boltOptions()})
	if err != nil {
		trans.Close()
		return nil, fmt.Errorf("open raft log store: %w", err)
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(cfg.DataDir, 2, logger)
	if err != nil {
		store.Close()
		trans.Close()
		return nil, fmt.Errorf("open snapshot store: %w", err)
	}
	fsm.restoredIndex = latestSnapshotIndex(snaps)
	logs, err := raft.NewLogCache(logCacheSize, store)
	if err != nil {
		return nil, err
	}
	if cfg.Bootstrap {
		has, err := raft.HasExistingState(logs, store, snaps)
		if err != nil {
			return nil, fmt.Errorf("inspect raft state: %w", err)
		}
		if !has {
			conf := raft.Configuration{Servers: []raft.Server{{ID: rc.LocalID, Address: trans.LocalAddr()}}}
			if len(cfg.Peers) > 0 {
				conf.Servers = cfg.Peers
			}
			if err := raft.BootstrapCluster(rc, logs, store, snaps, trans, conf); err != nil {
				return nil, fmt.Errorf("bootstrap raft: %w", err)
			}
		}
	}
	r, err := raft.NewRaft(rc, fsm, logs, store, snaps, trans)
	if err != nil {
		store.Close()
		trans.Close()
		return nil, fmt.Errorf("start raft: %w", err)
	}
	return &Node{Raft: r, FSM: fsm, ID: id, store: store, transport: trans, snaps: snaps}, nil
}

// boltOptions tune the Raft log's bolt file for its one writer that
// appends and truncates. NoFreelistSync: a commit no longer writes bolt's
// list of free pages, which after log truncations spans several pages,
// next to the few pages of the new entries; the two fdatasyncs of every
// commit (pages, then the meta page that makes them current) stay, so a
// committed entry is as durable as before. Opening the file rebuilds the
// list by scanning the pages (what etcd does by default); a file written
// either way opens either way. The hashmap freelist finds free pages
// without scanning an array.
func boltOptions() *bbolt.Options {
	return &bbolt.Options{NoFreelistSync: true, FreelistType: bbolt.FreelistMapType}
}

// nodeID returns this server's persistent Raft id, creating it once. A
// configured id must match the one the data directory was created with:
// changing it would make this server a stranger to its own log.
func nodeID(dir, want string) (string, error) {
	p := filepath.Join(dir, "node-id")
	if b, err := os.ReadFile(p); err == nil {
		have := strings.TrimSpace(string(b))
		if want != "" && want != have {
			return "", fmt.Errorf("node_id %q differs from the id %q this data directory (%s) was created with", want, have, dir)
		}
		return have, nil
	}
	id := want
	if id == "" {
		var buf [16]byte
		if _, err := rand.Read(buf[:]); err != nil {
			return "", err
		}
		id = hex.EncodeToString(buf[:])
	}
	if err := os.WriteFile(p, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write node id: %w", err)
	}
	return id, nil
}

// Apply proposes a command and waits until it is committed and applied. The
// FSM's answer is returned; an answer that is an error (a refused request)
// comes back as the error.
func (n *Node) Apply(cmd Command, timeout time.Duration) (any, error) {
	data, err := Encode(cmd)
	if err != nil {
		return nil, err
	}
	f := n.Raft.Apply(data, timeout)
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) {
			return nil, fmt.Errorf("%w: %v", ErrNotLeader, err)
		}
		return nil, fmt.Errorf("apply %s: %w", cmd.Type(), err)
	}
	resp := f.Response()
	if pe, ok := resp.(*model.PBSError); ok {
		return nil, pe
	}
	if e, ok := resp.(error); ok {
		return nil, e
	}
	return resp, nil
}

// IsLeader reports whether this node leads.
func (n *Node) IsLeader() bool { return n.Raft.State() == raft.Leader }

// Shutdown stops Raft and closes the stores.
func (n *Node) Shutdown() error {
	err := n.Raft.Shutdown().Error()
	n.transport.Close()
	n.store.Close()
	return err
}
