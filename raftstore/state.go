package raftstore

import (
	"fmt"
	"sort"
	"strings"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

const (
	tableJobs    = "jobs"
	tableVnodes  = "vnodes"
	tableMeta    = "meta"
	tableIndexes = "indexes"
)

// meta is the single row of cluster-wide counters and configuration.
type meta struct {
	ID string `json:"id"`
	// NextSeq is the one replicated counter jobs and reservations draw
	// their sequence numbers from.
	NextSeq int64 `json:"next_seq"`
	// Epoch moves whenever vnodes or resource definitions change; the
	// scheduler uses it to avoid re-judging jobs that can never run.
	Epoch  uint64             `json:"epoch"`
	Config model.ServerConfig `json:"config"`
	// AcctCount is the number of records in the accounting table and
	// AcctTrimmed the Seq of the last one dropped from it (accounting.go).
	AcctCount   int    `json:"acct_count,omitempty"`
	AcctTrimmed uint64 `json:"acct_trimmed,omitempty"`
}

// tableIndex records the Raft index that last changed a table, so watchers
// (agents long-polling for work) know whether anything moved.
type tableIndex struct {
	Table string
	Index uint64
}

func schema() *memdb.DBSchema {
	return &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{
		tableJobs: {Name: tableJobs, Indexes: map[string]*memdb.IndexSchema{
			"id":    {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
			"ms":    {Name: "ms", AllowMissing: true, Indexer: jobStringIndex{"MSHost", (*model.Job).MSHost}},
			"dep":   {Name: "dep", AllowMissing: true, Indexer: depIndexer{}},
			"array": {Name: "array", AllowMissing: true, Indexer: jobStringIndex{"ArrayID", (*model.Job).ArrayID}},
		}},
		tableVnodes: {Name: tableVnodes, Indexes: map[string]*memdb.IndexSchema{
			"id":   {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Name"}},
			"host": {Name: "host", Indexer: &memdb.StringFieldIndex{Field: "Host"}},
		}},
		tableMeta: {Name: tableMeta, Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
		}},
		tableIndexes: {Name: tableIndexes, Indexes: map[string]*memdb.IndexSchema{
			"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Table"}},
		}},
		// Provisioning (state_provision.go).
		tableProvOps:   provOpsSchema(),
		tableProvStats: provStatsSchema(),
		// Accounting (accounting.go).
		tableAcct: acctSchema(),
		// Reservations (state_resv.go).
		tableResvs: resvsSchema(),
		// The servers of the cluster (servers.go).
		tableServers: serversSchema(),
		// Fairshare usage and its decay clock (apply_fairshare.go).
		tableFSUsage: fsUsageSchema(),
		tableFSClock: fsClockSchema(),
		// Finished subjobs (subjob_history.go).
		tableSubjobsDone: subjobsDoneSchema(),
		// The jobs of each state, in groups (index_state.go).
		tableJobStates: jobStatesSchema(),
	}}
}

// StateStore is the in-memory state the FSM maintains. Reads go through
// Snapshot, which is a consistent MVCC view that never blocks writers.
type StateStore struct {
	db *memdb.MemDB
	// pack is the compact job representation's sharing tables
	// (compact.go), used by the one writer (the FSM) only.
	pack *compactor
	// tokens maps submission tokens to jobs (tokens.go), the FSM's
	// writer's only.
	tokens *tokenIndex
}

// commitTokens applies the token removals of the transaction just
// committed.
func (s *StateStore) commitTokens() {
	if len(s.tokens.pending) == 0 {
		return
	}
	snap := s.Snapshot()
	s.tokens.commit(func(token, id string) bool {
		j := first[model.Job](snap.txn, tableJobs, "id", id)
		return j != nil && j.Token == token
	})
}

// NewStateStore returns an empty store.
func NewStateStore() (*StateStore, error) {
	db, err := memdb.NewMemDB(schema())
	if err != nil {
		return nil, fmt.Errorf("create state store: %w", err)
	}
	return &StateStore{db: db, pack: newCompactor(), tokens: newTokenIndex()}, nil
}

// first returns the first object of table matching index and args, typed,
// or nil. Every typed getter of the snapshot and the writer goes through it.
func first[T any](txn *memdb.Txn, table, index string, args ...any) *T {
	raw, err := txn.First(table, index, args...)
	if err != nil || raw == nil {
		return nil
	}
	return raw.(*T)
}

// Snapshot returns a read-only consistent view of the state.
func (s *StateStore) Snapshot() *StateSnapshot {
	return &StateSnapshot{txn: s.db.Txn(false)}
}

// StateSnapshot is a read-only view. Objects it returns are shared with the
// store and must not be modified.
type StateSnapshot struct {
	txn *memdb.Txn
}

func (s *StateSnapshot) meta() *meta {
	raw, err := s.txn.First(tableMeta, "id", "meta")
	if err != nil || raw == nil {
		return &meta{ID: "meta"}
	}
	return raw.(*meta)
}

// Config returns the replicated server configuration.
func (s *StateSnapshot) Config() model.ServerConfig { return s.meta().Config }

// Configured reports whether a server configuration was ever committed.
func (s *StateSnapshot) Configured() bool { return s.meta().Config.Name != "" }

// Epoch returns the resource epoch.
func (s *StateSnapshot) Epoch() uint64 { return s.meta().Epoch }

// NextSeq returns the next sequence number the counter will hand out.
func (s *StateSnapshot) NextSeq() int64 { return s.meta().NextSeq }

// Job returns a job by id, or nil. A finished subjob is rebuilt from its
// compact record (subjob_history.go): a fresh value each call.
func (s *StateSnapshot) Job(id string) *model.Job {
	if j := first[model.Job](s.txn, tableJobs, "id", id); j != nil {
		return j
	}
	if strings.IndexByte(id, '[') < 0 {
		return nil
	}
	return s.finishedSubjob(id)
}

// Jobs returns every job, in submission order, finished subjobs rebuilt
// from their compact records. Callers that skip finished subjobs anyway
// should use JobRows, which does not rebuild them.
func (s *StateSnapshot) Jobs() []*model.Job {
	out := s.indexedJobs("id")
	s.eachFinishedSubjob(func(j *model.Job) error {
		out = append(out, j)
		return nil
	})
	sortJobs(out)
	return out
}

// JobRows returns every job but the finished subjobs, in submission order:
// the jobs that are not history, finished jobs and arrays, and nothing
// that grows with the subjobs an array has run.
func (s *StateSnapshot) JobRows() []*model.Job {
	return s.collectJobs("id")
}

// JobsInState returns the jobs in one state, in submission order.
func (s *StateSnapshot) JobsInState(state string) []*model.Job {
	out := jobsInState(s.txn, state)
	sortJobs(out)
	return out
}

// JobsOnHost returns the jobs whose mother superior is host, and a channel
// that closes when that set changes (for agents' long polls).
func (s *StateSnapshot) JobsOnHost(host string) ([]*model.Job, <-chan struct{}) {
	it, err := s.txn.Get(tableJobs, "ms", host)
	if err != nil {
		return nil, nil
	}
	var out []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Job))
	}
	sortJobs(out)
	return out, it.WatchCh()
}

// JobsInStateUnordered is JobsInState in index order (job ids as
// strings), for callers that sort anyway: the scheduler's input sorts a
// long queue once, in job order.
func (s *StateSnapshot) JobsInStateUnordered(state string) []*model.Job {
	return jobsInState(s.txn, state)
}

func (s *StateSnapshot) collectJobs(index string, args ...any) []*model.Job {
	out := s.indexedJobs(index, args...)
	sortJobs(out)
	return out
}

// indexedJobs lists the jobs an index lookup finds, in index order.
func (s *StateSnapshot) indexedJobs(index string, args ...any) []*model.Job {
	it, err := s.txn.Get(tableJobs, index, args...)
	if err != nil {
		return nil
	}
	var out []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Job))
	}
	return out
}

func sortJobs(jobs []*model.Job) {
	// Subjobs share their parent's Seq: the parent first, then by index.
	sort.Slice(jobs, func(i, j int) bool {
		a, b := jobs[i], jobs[j]
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		if a.IsSubjob() != b.IsSubjob() {
			return !a.IsSubjob()
		}
		return a.ArrayIndex() < b.ArrayIndex()
	})
}

// SubjobRows returns the rows of an array's subjobs that have not
// finished, by index: what callers that want running subjobs need,
// without rebuilding the finished ones.
func (s *StateSnapshot) SubjobRows(parentID string) []*model.Job {
	return s.collectJobs("array", parentID)
}

// Subjobs returns the records of an array's subjobs (started ones), by
// index; finished ones are rebuilt from their compact records.
func (s *StateSnapshot) Subjobs(parentID string) []*model.Job {
	out := s.indexedJobs("array", parentID)
	out = append(out, finishedSubjobsOf(s.txn, parentID)...)
	sortJobs(out)
	return out
}

// Vnode returns a vnode by name, or nil.
func (s *StateSnapshot) Vnode(name string) *model.Vnode {
	return first[model.Vnode](s.txn, tableVnodes, "id", name)
}

// Vnodes returns every vnode in registration order (by name within a host,
// hosts in name order, which is what pbsnodes shows).
func (s *StateSnapshot) Vnodes() []*model.Vnode {
	it, err := s.txn.Get(tableVnodes, "id")
	if err != nil {
		return nil
	}
	var out []*model.Vnode
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Vnode))
	}
	sort.SliceStable(out, func(i, j int) bool { return naturalLess(out[i].Name, out[j].Name) })
	return out
}

// VnodesOnHost returns the vnodes of one host.
func (s *StateSnapshot) VnodesOnHost(host string) []*model.Vnode {
	it, err := s.txn.Get(tableVnodes, "host", host)
	if err != nil {
		return nil
	}
	var out []*model.Vnode
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Vnode))
	}
	return out
}

// HostWorkKey names the index row that moves whenever the jobs of one
// mother superior host change.
func HostWorkKey(host string) string { return "host/" + host }

// AnyHostWorkKey is the index row that moves with every host's work index:
// one watch for a simulator's multiplexed poll over many hosts.
const AnyHostWorkKey = "hosts/any"

// TableIndex returns the Raft index that last changed a table and a channel
// closed on its next change.
func (s *StateSnapshot) TableIndex(table string) (uint64, <-chan struct{}) {
	ch, raw, err := s.txn.FirstWatch(tableIndexes, "id", table)
	if err != nil || raw == nil {
		return 0, ch
	}
	return raw.(*tableIndex).Index, ch
}

// HostWorkIndexes calls fn with every host's work index (HostWorkKey), in
// one walk of the index rows: cheaper than a TableIndex per host for a
// simulator's poll over thousands of hosts.
func (s *StateSnapshot) HostWorkIndexes(fn func(host string, index uint64)) {
	it, err := s.txn.Get(tableIndexes, "id_prefix", HostWorkKey(""))
	if err != nil {
		return
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		ti := raw.(*tableIndex)
		fn(strings.TrimPrefix(ti.Table, HostWorkKey("")), ti.Index)
	}
}

// tableIndexes lists every index row (for snapshots).
func (s *StateSnapshot) tableIndexes() []*tableIndex {
	it, err := s.txn.Get(tableIndexes, "id")
	if err != nil {
		return nil
	}
	var out []*tableIndex
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*tableIndex))
	}
	return out
}

// naturalLess orders "node2" before "node10".
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := a[:da], b[:db]
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// depIndexer indexes jobs by the parents of their pending dependencies, so
// a parent's start or end finds its dependents without scanning the queue.
type depIndexer struct{}

func (depIndexer) FromObject(obj any) (bool, [][]byte, error) {
	j, ok := obj.(*model.Job)
	if !ok || len(j.Deps()) == 0 {
		return false, nil, nil
	}
	seen := map[string]bool{}
	var out [][]byte
	for _, d := range j.Deps() {
		if !seen[d.Job] {
			seen[d.Job] = true
			out = append(out, []byte(d.Job+"\x00"))
		}
	}
	return true, out, nil
}

func (depIndexer) FromArgs(args ...any) ([]byte, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("dep index takes one job id")
	}
	id, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("dep index: %v is not a job id", args[0])
	}
	return []byte(id + "\x00"), nil
}
