package raftstore

import (
	"sort"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// ServerInfo records (or with Remove, forgets) one server of the cluster in
// replicated state: where its API is, so that every server forwards writes
// to a leader that was added at run time (operator raft add-peer) without a
// configuration change, and which command level it supports, so that a new
// leader knows at once which command types every server applies
// (levels.go). The leader writes it from the server's own announcement.
type ServerInfo struct {
	ID       string `json:"id"`
	RaftAddr string `json:"raft_addr,omitempty"`
	APIAddr  string `json:"api_addr,omitempty"`
	Level    int    `json:"level,omitempty"`
	Remove   bool   `json:"remove,omitempty"`
}

func (*ServerInfo) Type() MessageType { return ServerInfoType }

// ServerRecord is a stored ServerInfo.
type ServerRecord struct {
	ID       string `json:"id"`
	RaftAddr string `json:"raft_addr,omitempty"`
	APIAddr  string `json:"api_addr,omitempty"`
	Level    int    `json:"level"`
}

const tableServers = "servers"

func serversSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableServers, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
	}}
}

// bounds of a ServerInfo (FSM bounds: an entry is data from the network).
const maxServerField = 256

func (w *writer) serverInfo(c *ServerInfo) any {
	if c.ID == "" || len(c.ID) > maxServerField || len(c.APIAddr) > maxServerField || len(c.RaftAddr) > maxServerField || c.Level < 0 || c.Level > 255 {
		return model.Errorf(model.PBSEInvalidRequest, ": bad server record")
	}
	if c.Remove {
		if old := first[ServerRecord](w.txn, tableServers, "id", c.ID); old != nil {
			w.must(w.txn.Delete(tableServers, old))
			w.touch(tableServers)
		}
		return nil
	}
	w.must(w.txn.Insert(tableServers, &ServerRecord{ID: c.ID, RaftAddr: c.RaftAddr, APIAddr: c.APIAddr, Level: c.Level}))
	w.touch(tableServers)
	return nil
}

// Servers returns the recorded servers by id.
func (s *StateSnapshot) Servers() []*ServerRecord {
	it, err := s.txn.Get(tableServers, "id")
	if err != nil {
		return nil
	}
	var out []*ServerRecord
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*ServerRecord))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].ID < out[k].ID })
	return out
}

// Server returns the record of one server, or nil.
func (s *StateSnapshot) Server(id string) *ServerRecord {
	return first[ServerRecord](s.txn, tableServers, "id", id)
}

// persistServers writes the server records into a snapshot. There are
// none until every server supports level 2, so a snapshot an older server
// might have to install never holds a record kind it does not know.
func (s *StateSnapshot) persistServers(write func(kind string, v any) error) error {
	for _, r := range s.Servers() {
		if err := write("server", r); err != nil {
			return err
		}
	}
	return nil
}
