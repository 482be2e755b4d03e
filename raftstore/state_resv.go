package raftstore

import (
	"sort"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// tableResvs holds reservations (docs/reservations.md).
const tableResvs = "resvs"

func resvsSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableResvs, Indexes: map[string]*memdb.IndexSchema{
		"id":    {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
		"token": {Name: "token", AllowMissing: true, Indexer: &memdb.StringFieldIndex{Field: "Token"}},
	}}
}

// Reservations returns every reservation, tombstones included, in
// submission order.
func (s *StateSnapshot) Reservations() []*model.Reservation {
	it, err := s.txn.Get(tableResvs, "id")
	if err != nil {
		return nil
	}
	var out []*model.Reservation
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Reservation))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Seq < out[k].Seq })
	return out
}

// Reservation returns a reservation (or its tombstone) by id, or nil.
func (s *StateSnapshot) Reservation(id string) *model.Reservation {
	return first[model.Reservation](s.txn, tableResvs, "id", id)
}

// ResvWatch returns a channel closed on the next change of the
// reservation table (the leader's reservation loop sleeps on it).
func (s *StateSnapshot) ResvWatch() <-chan struct{} {
	_, ch := s.TableIndex(tableResvs)
	return ch
}

func (s *StateSnapshot) persistResvs(write func(kind string, v any) error) error {
	for _, r := range s.Reservations() {
		if err := write("resv", r); err != nil {
			return err
		}
	}
	return nil
}
