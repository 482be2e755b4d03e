package api

import (
	"context"
	"io"
	"net/http"
)

// RaftPeer is one server of the Raft configuration (strata operator raft
// list-peers).
type RaftPeer struct {
	ID      string `json:"id"`
	Address string `json:"address"`
	APIAddr string `json:"api_addr,omitempty"`
	Voter   bool   `json:"voter"`
	Leader  bool   `json:"leader"`
	// Level is the command level the server supports, 0 when unknown to
	// the server answering (docs/ha.md, rolling upgrades).
	Level int `json:"level,omitempty"`
}

// RaftPeersResponse answers GET /operator/raft/peers.
type RaftPeersResponse struct {
	Peers []RaftPeer `json:"peers"`
	// CommandLevel is the highest command level every voter supports, as
	// far as the answering server knows; Behind names the voters below
	// this release's level (new command types are held back for them).
	CommandLevel int      `json:"command_level"`
	Behind       []string `json:"behind,omitempty"`
}

// ServerAnnouncement is what a server tells the leader about itself.
type ServerAnnouncement struct {
	ID       string `json:"id"`
	RaftAddr string `json:"raft_addr"`
	APIAddr  string `json:"api_addr"`
	Level    int    `json:"level"`
}

// RaftPeerRequest names a server to add (id and Raft address) or remove
// (id, or address).
type RaftPeerRequest struct {
	ID      string `json:"id"`
	Address string `json:"address"`
}

// Snapshot is a saved state snapshot (strata operator snapshot save): a
// JSON header line and the FSM's bytes, base64 in JSON.
type Snapshot struct {
	Data []byte `json:"data"`
}

// RaftPeers lists the Raft configuration.
func (c *Client) RaftPeers(ctx context.Context) (*RaftPeersResponse, error) {
	var out RaftPeersResponse
	err := c.Do(ctx, http.MethodGet, "/operator/raft/peers", nil, nil, &out)
	return &out, err
}

// AddRaftPeer adds a voter.
func (c *Client) AddRaftPeer(ctx context.Context, req RaftPeerRequest) error {
	return c.Do(ctx, http.MethodPost, "/operator/raft/peers", nil, req, nil)
}

// TransferLeadership hands leadership to the server req.ID.
func (c *Client) TransferLeadership(ctx context.Context, req RaftPeerRequest) error {
	return c.Do(ctx, http.MethodPost, "/operator/raft/transfer", nil, req, nil)
}

// RemoveRaftPeer removes a server.
func (c *Client) RemoveRaftPeer(ctx context.Context, req RaftPeerRequest) error {
	return c.Do(ctx, http.MethodPost, "/operator/raft/peers/remove", nil, req, nil)
}

// SaveSnapshot fetches a snapshot of the state.
func (c *Client) SaveSnapshot(ctx context.Context) ([]byte, error) {
	var out Snapshot
	err := c.Do(ctx, http.MethodGet, "/operator/snapshot", nil, nil, &out)
	return out.Data, err
}

// SnapshotContentType is the body of a snapshot restore: the snapshot
// file's bytes as they are, streamed (it may be far larger than a
// request's max_body_bytes).
const SnapshotContentType = "application/vnd.strata.snapshot"

// RestoreSnapshot replaces the cluster's state with a saved snapshot,
// streamed from open (called again for each server tried).
func (c *Client) RestoreSnapshot(ctx context.Context, open func() (io.ReadCloser, error)) error {
	return c.Do(ctx, http.MethodPost, "/operator/snapshot", nil, rawBody{contentType: SnapshotContentType, open: open}, nil)
}

// RaftIndex is the leader's applied index (GET /raft/index), which a
// follower waits for before answering a read.
type RaftIndex struct {
	Index uint64 `json:"index"`
}
