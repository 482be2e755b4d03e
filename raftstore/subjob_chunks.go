package raftstore

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// Finished subjob records are stored in chunks: one row per array and run
// of chunkSize indices, holding that run's records sorted by index. A
// go-memdb index entry costs about 500 bytes (a radix node and a leaf, each
// with its own watch channel), half of what a compact record costs on its
// own; one entry per chunk makes it a few bytes per subjob. A change
// copies the chunk's slice of pointers (at most chunkSize of them), as
// every change in the store copies what it touches.
const chunkSize = 64

// subjobChunk is one row of tableSubjobsDone.
type subjobChunk struct {
	// Key is "<parent id>\x00<chunk number, 16 hex digits>": the chunks of
	// one array are adjacent and in index order.
	Key  string
	recs []*finishedSubjob // sorted by ArrayIndex, never empty
}

func subjobsDoneSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableSubjobsDone, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Key"}},
	}}
}

func chunkKey(parentID string, idx int64) string {
	return fmt.Sprintf("%s\x00%016x", parentID, idx/chunkSize)
}

// chunkOf returns the chunk that holds (or would hold) subjob id, and the
// subjob's index; ok is false when id is not a subjob id.
func chunkOf(txn *memdb.Txn, id string) (c *subjobChunk, key string, idx int64, ok bool) {
	pid, inside, isArr := model.SplitArrayID(id)
	if !isArr || inside == "" {
		return nil, "", 0, false
	}
	idx, err := strconv.ParseInt(inside, 10, 64)
	if err != nil || idx < 0 {
		return nil, "", 0, false
	}
	key = chunkKey(pid, idx)
	return first[subjobChunk](txn, tableSubjobsDone, "id", key), key, idx, true
}

// find returns the position of idx in c's records and whether it is there.
func (c *subjobChunk) find(idx int64) (int, bool) {
	i := sort.Search(len(c.recs), func(i int) bool { return c.recs[i].ArrayIndex >= idx })
	return i, i < len(c.recs) && c.recs[i].ArrayIndex == idx
}

// getDone returns the record of finished subjob id, or nil.
func getDone(txn *memdb.Txn, id string) *finishedSubjob {
	c, _, idx, ok := chunkOf(txn, id)
	if !ok || c == nil {
		return nil
	}
	if i, found := c.find(idx); found && c.recs[i].ID == id {
		return c.recs[i]
	}
	return nil
}

// putDone stores r, replacing a record of the same subjob.
func putDone(txn *memdb.Txn, r *finishedSubjob) error {
	c, key, idx, ok := chunkOf(txn, r.ID)
	if !ok {
		return fmt.Errorf("store finished subjob: %q is not a subjob id", r.ID)
	}
	n := &subjobChunk{Key: key}
	if c == nil {
		n.recs = []*finishedSubjob{r}
	} else {
		i, found := c.find(idx)
		n.recs = make([]*finishedSubjob, 0, len(c.recs)+1)
		n.recs = append(n.recs, c.recs[:i]...)
		n.recs = append(n.recs, r)
		if found {
			i++
		}
		n.recs = append(n.recs, c.recs[i:]...)
	}
	return txn.Insert(tableSubjobsDone, n)
}

// deleteDone removes the record of subjob id, if there is one.
func deleteDone(txn *memdb.Txn, id string) error {
	c, _, idx, ok := chunkOf(txn, id)
	if !ok || c == nil {
		return nil
	}
	i, found := c.find(idx)
	if !found {
		return nil
	}
	if len(c.recs) == 1 {
		return txn.Delete(tableSubjobsDone, c)
	}
	n := &subjobChunk{Key: c.Key, recs: make([]*finishedSubjob, 0, len(c.recs)-1)}
	n.recs = append(append(n.recs, c.recs[:i]...), c.recs[i+1:]...)
	return txn.Insert(tableSubjobsDone, n)
}

// eachDone calls fn with the records of one array's finished subjobs in
// index order (parentID set), or with every record (parentID "").
func eachDone(txn *memdb.Txn, parentID string, fn func(*finishedSubjob) error) error {
	prefix := ""
	if parentID != "" {
		prefix = parentID + "\x00"
	}
	it, err := txn.Get(tableSubjobsDone, "id_prefix", prefix)
	if err != nil {
		return err
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		c := raw.(*subjobChunk)
		if parentID != "" && !strings.HasPrefix(c.Key, prefix) {
			continue
		}
		for _, r := range c.recs {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}
