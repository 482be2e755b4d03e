package server

import (
	"strings"
	"testing"
)

func TestPeersValidation(t *testing.T) {
	base := func() *Config {
		c := DefaultConfig()
		c.Name, c.TLS = "svr", TLSConfig{CAFile: "ca", CertFile: "c", KeyFile: "k"}
		c.NodeID, c.RaftAddr = "s1", "10.0.0.1:15002"
		c.Peers = []Peer{{ID: "s1", RaftAddr: "10.0.0.1:15002", APIAddr: "10.0.0.1:15001"},
			{ID: "s2", RaftAddr: "10.0.0.2:15002", APIAddr: "10.0.0.2:15001"},
			{ID: "s3", RaftAddr: "10.0.0.3:15002", APIAddr: "10.0.0.3:15001"}}
		return c
	}
	if err := base().Validate(); err != nil {
		t.Fatalf("valid peers refused: %v", err)
	}
	for want, edit := range map[string]func(*Config){
		"node_id: must be set":       func(c *Config) { c.NodeID = "" },
		"not one of the [[peer]]":    func(c *Config) { c.NodeID = "s9" },
		"listed twice":               func(c *Config) { c.Peers[1].ID = "s1" },
		"peer.raft_addr":             func(c *Config) { c.RaftAddr = "10.0.0.1:9999" },
		"peer.api_addr":              func(c *Config) { c.Peers[2].APIAddr = "nohost" },
		"peer.id: \"\" is not valid": func(c *Config) { c.Peers[2].ID = "" },
	} {
		c := base()
		edit(c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), strings.Split(want, ":")[0]) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	c := base()
	if got := c.peerAPI("s2"); got != "10.0.0.2:15001" {
		t.Errorf("peerAPI(s2) = %q", got)
	}
	if len(c.raftPeers()) != 3 {
		t.Errorf("raftPeers: %v", c.raftPeers())
	}
}
