package api_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/servertest"
)

// TestOperatorCalls: the operator client against a real server: the Raft
// configuration, a snapshot saved and restored (a job submitted after the
// save is gone after the restore), and the refusals a manager sees.
func TestOperatorCalls(t *testing.T) {
	needRoot(t)
	ctx := ctxFor(t)
	s := servertest.Start(t, nil)
	c := s.Root

	peers, err := c.RaftPeers(ctx)
	if err != nil || len(peers.Peers) != 1 || !peers.Peers[0].Leader || peers.CommandLevel < 1 {
		t.Fatalf("peers: %+v %v", peers, err)
	}
	kept, err := c.Submit(ctx, job(nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := c.SaveSnapshot(ctx)
	if err != nil || len(snap) == 0 {
		t.Fatalf("save: %d bytes, %v", len(snap), err)
	}
	later, err := c.Submit(ctx, job(nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RestoreSnapshot(ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(snap)), nil }); err != nil {
		t.Fatalf("restore: %v", err)
	}
	resp, err := c.Jobs(ctx, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, j := range resp.Jobs {
		seen[j.ID] = true
	}
	if !seen[kept] || seen[later] {
		t.Errorf("after the restore: %v; want %s and not %s", seen, kept, later)
	}
	// A garbage snapshot is refused and changes nothing.
	err = c.RestoreSnapshot(ctx, func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader([]byte("not a snapshot"))), nil })
	if err == nil {
		t.Error("a garbage snapshot was restored")
	}
	// Membership changes a one-server cluster cannot make.
	if err := c.RemoveRaftPeer(ctx, api.RaftPeerRequest{ID: "nosuch"}); err == nil {
		t.Error("removing an unknown server succeeded")
	}
	if err := c.TransferLeadership(ctx, api.RaftPeerRequest{ID: "nosuch"}); err == nil {
		t.Error("transferring leadership to an unknown server succeeded")
	}
	if err := c.AddRaftPeer(ctx, api.RaftPeerRequest{ID: "", Address: ""}); err == nil {
		t.Error("adding a server without id or address succeeded")
	}
}
