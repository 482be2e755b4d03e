package raftstore

import (
	"encoding/binary"
	"fmt"
	"slices"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// Jobs by state.
//
// The scheduler, the FSM and the server list the jobs of one state (the
// queued ones every cycle, the running ones, history to purge). This was
// a go-memdb index on the jobs table, which costs about 450 bytes per job:
// every entry is a radix leaf and node, each with its own watch channel,
// a fifth of a queued job's memory. Nobody watches that index, so the
// jobs of a state are kept in groups instead: rows of a table of their
// own, each holding up to stateGroupSize jobs of one state that are near
// in submission order (by Seq, and a subjob's by index under its array's
// Seq), so the radix entry is paid once per group: about 20 bytes per job.
//
// The groups are rows of the same go-memdb database, changed in the same
// transaction as the jobs: a snapshot (the scheduler's MVCC view) sees the
// groups of its own version, an aborted transaction leaves them as they
// were, and rows are never changed in place (a change replaces the row).
// They are derived from the jobs table, not replicated state: not in
// snapshots (restore rebuilds them), nothing in the Raft log.
const tableJobStates = "jobstates"

// stateGroupSize bounds a group: a change copies its row (at most 64
// pointers), and the index costs one entry per group.
const stateGroupSize = 64

type stateGroup struct {
	Key  string
	Jobs []*model.Job // in submission order (jobOrderLess), distinct ids
}

func jobStatesSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableJobStates, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Key"}},
	}}
}

// stateGroupKey is the group of a job: its state, a NUL, then 'j' and
// Seq/64 for a job, 's', the array's Seq and index/64 for a subjob (whose
// Seq is its array's: a large array's running subjobs spread over groups).
func stateGroupKey(j *model.Job) string {
	b := make([]byte, 0, len(j.State)+18)
	b = append(b, j.State...)
	b = append(b, 0)
	if j.IsSubjob() {
		b = binary.BigEndian.AppendUint64(append(b, 's'), uint64(j.Seq))
		return string(binary.BigEndian.AppendUint64(b, uint64(j.ArrayIndex())/stateGroupSize))
	}
	return string(binary.BigEndian.AppendUint64(append(b, 'j'), uint64(j.Seq)/stateGroupSize))
}

// statePrefix is the key prefix of every group of state.
func statePrefix(state string) string { return state + "\x00" }

// jobOrderLess is submission order (sortJobs): by Seq, an array parent
// before its subjobs, subjobs by index.
func jobOrderLess(a, b *model.Job) bool {
	if a.Seq != b.Seq {
		return a.Seq < b.Seq
	}
	if a.IsSubjob() != b.IsSubjob() {
		return !a.IsSubjob()
	}
	return a.ArrayIndex() < b.ArrayIndex()
}

func jobOrderCmp(a, b *model.Job) int {
	switch {
	case jobOrderLess(a, b):
		return -1
	case jobOrderLess(b, a):
		return 1
	}
	return 0
}

// jobsInState lists the jobs of one state, group by group (nearly
// submission order; callers that need it sort).
func jobsInState(txn *memdb.Txn, state string) []*model.Job {
	it, err := txn.Get(tableJobStates, "id_prefix", statePrefix(state))
	if err != nil {
		return nil
	}
	var out []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*stateGroup).Jobs...)
	}
	return out
}

// moveStateGroups records in txn that the row of a job changed from old
// (nil for a new row) to j (nil when the row is deleted).
func moveStateGroups(txn *memdb.Txn, old, j *model.Job) error {
	var oldKey, newKey string
	if old != nil {
		oldKey = stateGroupKey(old)
	}
	if j != nil {
		newKey = stateGroupKey(j)
	}
	if old != nil && (j == nil || oldKey != newKey) {
		if err := changeStateGroup(txn, oldKey, old, nil); err != nil {
			return err
		}
	}
	if j != nil {
		return changeStateGroup(txn, newKey, j, j)
	}
	return nil
}

// changeStateGroup replaces the group key by one where the job of j's id
// is put (put non-nil) or removed (put nil).
func changeStateGroup(txn *memdb.Txn, key string, j, put *model.Job) error {
	var jobs []*model.Job
	if raw, err := txn.First(tableJobStates, "id", key); err != nil {
		return fmt.Errorf("job state group: %w", err)
	} else if raw != nil {
		jobs = raw.(*stateGroup).Jobs
	}
	i, found := slices.BinarySearchFunc(jobs, j, jobOrderCmp)
	if found && jobs[i].ID != j.ID {
		// Two jobs in the same place of submission order (never made by
		// the FSM): keep both, find this one by id.
		found = false
		for k, o := range jobs {
			if o.ID == j.ID {
				i, found = k, true
				break
			}
		}
	}
	n := len(jobs)
	switch {
	case put == nil && !found:
		return nil
	case put == nil:
		n--
	case !found:
		n++
	}
	if n == 0 {
		if err := txn.Delete(tableJobStates, &stateGroup{Key: key}); err != nil {
			return fmt.Errorf("job state group: %w", err)
		}
		return nil
	}
	// A new row: readers of earlier versions keep theirs.
	out := make([]*model.Job, 0, n)
	out = append(out, jobs[:i]...)
	if put != nil {
		out = append(out, put)
	}
	if found {
		i++
	}
	out = append(out, jobs[i:]...)
	if err := txn.Insert(tableJobStates, &stateGroup{Key: key, Jobs: out}); err != nil {
		return fmt.Errorf("job state group: %w", err)
	}
	return nil
}

// rebuildStateGroups makes the groups of every job row in txn (after a
// snapshot was restored into an empty store).
func rebuildStateGroups(txn *memdb.Txn) error {
	groups := map[string][]*model.Job{}
	it, err := txn.Get(tableJobs, "id")
	if err != nil {
		return fmt.Errorf("job state groups: %w", err)
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		j := raw.(*model.Job)
		k := stateGroupKey(j)
		groups[k] = append(groups[k], j)
	}
	for k, jobs := range groups {
		slices.SortFunc(jobs, jobOrderCmp)
		if err := txn.Insert(tableJobStates, &stateGroup{Key: k, Jobs: slices.Clip(jobs)}); err != nil {
			return fmt.Errorf("job state groups: %w", err)
		}
	}
	return nil
}

// EachUnfinishedJob calls fn for every job row that is not history (not
// F, X or M), group by group in no particular order. The counts every
// qstat and pbsnodes reply carries (state_count) come from it: walking
// the state groups skips the finished jobs, which with job history kept
// can outnumber the live ones many times.
func (s *StateSnapshot) EachUnfinishedJob(fn func(*model.Job)) {
	it, err := s.txn.Get(tableJobStates, "id")
	if err != nil {
		return
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		g := raw.(*stateGroup)
		if len(g.Jobs) == 0 || g.Jobs[0].IsFinished() {
			continue // a group holds jobs of one state
		}
		for _, j := range g.Jobs {
			fn(j)
		}
	}
}
