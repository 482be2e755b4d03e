package raftstore

import (
	"testing"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// TestAcctChunksReadLikeRows: records appended across many chunks (and
// several per Raft index, as one entry makes), trimmed from the oldest,
// read back after every Seq exactly as a table of one row per record
// would answer; an earlier snapshot of the database keeps its records
// while later transactions append and trim.
func TestAcctChunksReadLikeRows(t *testing.T) {
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		t.Fatal(err)
	}
	var want []*model.AcctRecord
	txn := db.Txn(true)
	for idx := uint64(1); idx <= 100; idx++ {
		for n := uint64(1); n <= idx%4; n++ {
			r := &model.AcctRecord{Seq: idx<<16 | n, Type: "Q"}
			if err := acctAppend(txn, r); err != nil {
				t.Fatal(err)
			}
			want = append(want, r)
		}
	}
	txn.Commit()
	before := db.Txn(false)
	beforeAll := acctAfter(before, 0, 1<<30)
	txn = db.Txn(true)
	for i := 0; i < 70; i++ {
		r, err := acctTrimOldest(txn)
		if err != nil || r != want[i] {
			t.Fatalf("trim %d: %v, %v", i, r, err)
		}
	}
	if err := acctAppend(txn, &model.AcctRecord{Seq: 1}); err == nil {
		t.Fatal("a record older than the newest was appended")
	}
	txn.Commit()
	want = want[70:]
	read := db.Txn(false)
	for _, after := range []uint64{0, want[0].Seq - 1, want[0].Seq, want[5].Seq + 1, want[63].Seq, want[len(want)-1].Seq, 1 << 40} {
		for _, limit := range []int{1, 3, 64, 1000} {
			got := acctAfter(read, after, limit)
			var exp []*model.AcctRecord
			for _, r := range want {
				if r.Seq > after && len(exp) < limit {
					exp = append(exp, r)
				}
			}
			if len(got) != len(exp) {
				t.Fatalf("after %d limit %d: %d records, want %d", after, limit, len(got), len(exp))
			}
			for i := range got {
				if got[i] != exp[i] {
					t.Fatalf("after %d limit %d: record %d is %d, want %d", after, limit, i, got[i].Seq, exp[i].Seq)
				}
			}
		}
	}
	if got := acctAfter(before, 0, 1<<30); len(got) != len(beforeAll) || got[0] != beforeAll[0] {
		t.Fatalf("the earlier snapshot changed: %d records, first %d", len(got), got[0].Seq)
	}
}
