package raftstore

import (
	"sort"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

const (
	tableProvOps   = "provops"
	tableProvStats = "provstats"
)

func provOpsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableProvOps, Indexes: map[string]*memdb.IndexSchema{
		"id":  {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Host"}},
		"job": {Name: "job", AllowMissing: true, Indexer: &memdb.StringFieldIndex{Field: "JobID"}},
	}}
}

func provStatsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableProvStats, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Key"}},
	}}
}

// ProvOps returns every provisioning operation, waiting ones in FIFO order
// after the started ones.
func (s *StateSnapshot) ProvOps() []*model.ProvOp {
	it, err := s.txn.Get(tableProvOps, "id")
	if err != nil {
		return nil
	}
	var out []*model.ProvOp
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.ProvOp))
	}
	sortProvOps(out)
	return out
}

// ProvOp returns the operation of a host, or nil.
func (s *StateSnapshot) ProvOp(host string) *model.ProvOp {
	return first[model.ProvOp](s.txn, tableProvOps, "id", host)
}

// ProvStats returns what was learned per host and AOE.
func (s *StateSnapshot) ProvStats() []*model.ProvStat {
	it, err := s.txn.Get(tableProvStats, "id")
	if err != nil {
		return nil
	}
	var out []*model.ProvStat
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.ProvStat))
	}
	return out
}

// ProvWatch returns a watch set that fires when the provisioning
// operations or the server configuration (max_concurrent_provision, the
// hook) change: the dispatcher's wake-up (ws.WatchCtx).
func (s *StateSnapshot) ProvWatch() memdb.WatchSet {
	ws := memdb.NewWatchSet()
	if it, err := s.txn.Get(tableProvOps, "id"); err == nil {
		ws.Add(it.WatchCh())
	}
	if ch, _, err := s.txn.FirstWatch(tableMeta, "id", "meta"); err == nil {
		ws.Add(ch)
	}
	return ws
}

func sortProvOps(ops []*model.ProvOp) {
	sort.Slice(ops, func(i, j int) bool {
		wi, wj := ops[i].State == model.ProvWaiting, ops[j].State == model.ProvWaiting
		if wi != wj {
			return !wi
		}
		if ops[i].Seq != ops[j].Seq {
			return ops[i].Seq < ops[j].Seq
		}
		return ops[i].Host < ops[j].Host
	})
}

func (s *StateSnapshot) persistProvision(write func(kind string, v any) error) error {
	for _, op := range s.ProvOps() {
		if err := write("provop", op); err != nil {
			return err
		}
	}
	for _, st := range s.ProvStats() {
		if err := write("provstat", st); err != nil {
			return err
		}
	}
	return nil
}
