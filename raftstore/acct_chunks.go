package raftstore

import (
	"cmp"
	"fmt"
	"slices"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// The accounting table in chunks.
//
// The table keeps the last maxAcctRecords records (accounting.go). As
// one go-memdb row per record, each cost about 450 bytes of index (a radix
// leaf and node with their watch channels) for a record of about 100:
// some 4.5 MB for a full table, a quarter of a KiB per job at 20,000
// queued jobs. Records are only ever appended (in Seq order), trimmed from
// the oldest and read in Seq order after a given Seq, so they are kept in
// chunks of up to acctChunkSize consecutive records, one row each. Rows
// are replaced, never changed in place (readers of earlier versions keep
// theirs), in the same transaction as the entry that made the records.
// Snapshots still hold one "acct" record per accounting record, and
// restore puts them back into chunks: nothing replicated changed.
const acctChunkSize = 64

// acctChunk is one row: consecutive records by Seq. First is its key: no
// more than its first record's Seq (trimming the oldest record keeps the
// key) and more than any Seq of the chunks before it.
type acctChunk struct {
	First uint64
	Recs  []*model.AcctRecord
}

func acctSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableAcct, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.UintFieldIndex{Field: "First"}},
	}}
}

// acctAppend adds r, whose Seq is above every stored record's.
func acctAppend(txn *memdb.Txn, r *model.AcctRecord) error {
	raw, err := txn.Last(tableAcct, "id")
	if err != nil {
		return fmt.Errorf("accounting: %w", err)
	}
	c := &acctChunk{First: r.Seq, Recs: []*model.AcctRecord{r}}
	if raw != nil {
		last := raw.(*acctChunk)
		if n := len(last.Recs); n > 0 && last.Recs[n-1].Seq >= r.Seq {
			return fmt.Errorf("accounting record %d after %d", r.Seq, last.Recs[n-1].Seq)
		}
		if len(last.Recs) < acctChunkSize {
			recs := make([]*model.AcctRecord, len(last.Recs)+1)
			copy(recs, last.Recs)
			recs[len(last.Recs)] = r
			c = &acctChunk{First: last.First, Recs: recs}
		}
	}
	if err := txn.Insert(tableAcct, c); err != nil {
		return fmt.Errorf("accounting: %w", err)
	}
	return nil
}

// acctTrimOldest drops the oldest record and returns it (nil when there
// is none).
func acctTrimOldest(txn *memdb.Txn) (*model.AcctRecord, error) {
	raw, err := txn.First(tableAcct, "id")
	if err != nil || raw == nil {
		return nil, err
	}
	c := raw.(*acctChunk)
	if len(c.Recs) <= 1 {
		if err := txn.Delete(tableAcct, c); err != nil {
			return nil, fmt.Errorf("accounting: %w", err)
		}
		if len(c.Recs) == 0 {
			return acctTrimOldest(txn)
		}
		return c.Recs[0], nil
	}
	// The rest shares the array: rows are never changed in place.
	if err := txn.Insert(tableAcct, &acctChunk{First: c.First, Recs: c.Recs[1:]}); err != nil {
		return nil, fmt.Errorf("accounting: %w", err)
	}
	return c.Recs[0], nil
}

// acctAfter returns up to limit records with Seq > after, oldest first.
func acctAfter(txn *memdb.Txn, after uint64, limit int) []*model.AcctRecord {
	// The chunk that may hold after+1 is the last one keyed at or below it.
	var from uint64
	if it, err := txn.ReverseLowerBound(tableAcct, "id", after+1); err == nil {
		if raw := it.Next(); raw != nil {
			from = raw.(*acctChunk).First
		}
	}
	it, err := txn.LowerBound(tableAcct, "id", from)
	if err != nil {
		return nil
	}
	var out []*model.AcctRecord
	for raw := it.Next(); raw != nil && len(out) < limit; raw = it.Next() {
		recs := raw.(*acctChunk).Recs
		i, _ := slices.BinarySearchFunc(recs, after+1, func(r *model.AcctRecord, seq uint64) int { return cmp.Compare(r.Seq, seq) })
		for _, r := range recs[i:] {
			if len(out) == limit {
				break
			}
			out = append(out, r)
		}
	}
	return out
}

// restoreAcct puts a snapshot's accounting records back into chunks, in
// Seq order.
func restoreAcct(txn *memdb.Txn, recs []*model.AcctRecord) error {
	slices.SortFunc(recs, func(a, b *model.AcctRecord) int { return cmp.Compare(a.Seq, b.Seq) })
	for i, r := range recs {
		if i > 0 && recs[i-1].Seq == r.Seq {
			continue // the same record twice: one row each used to keep one
		}
		if err := acctAppend(txn, r); err != nil {
			return err
		}
	}
	return nil
}
