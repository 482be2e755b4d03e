package raftstore

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"sync"
	"sync/atomic"

	memdb "github.com/hashicorp/go-memdb"
	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// FSM applies committed log entries to the StateStore. It implements
// raft.BatchingFSM so a group-committed batch is applied in one state-store
// transaction.
type FSM struct {
	mu     sync.RWMutex // guards state during Restore
	state  *StateStore
	logger *log.Logger
	// onApply, if set, is told which command types a batch applied (the
	// leader uses it to trigger scheduling cycles). It must not block.
	onApply func(types []MessageType)
	// applied is the index of the last entry this FSM has applied: unlike
	// Raft's AppliedIndex, which moves when entries are handed to the FSM,
	// it moves after they are in the state (applied.go).
	applied atomic.Uint64
	// restoredIndex, if set, tells Restore the index of the snapshot it is
	// restoring (the latest in the snapshot store).
	restoredIndex func() uint64
	// level is the command level this FSM applies (levels.go).
	level int
	// onEvents, if set, receives the event-log lines of committed entries
	// (eventlog.go). It must not block for long: it runs in Raft's apply
	// goroutine.
	onEvents func([]model.LogEvent)
}

// NewFSM returns an FSM over an empty state store.
func NewFSM(logger *log.Logger, onApply func([]MessageType)) (*FSM, error) {
	st, err := NewStateStore()
	if err != nil {
		return nil, err
	}
	return &FSM{state: st, logger: logger, onApply: onApply, level: CommandLevel()}, nil
}

// State returns the current state store (it changes on Restore).
func (f *FSM) State() *StateStore {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.state
}

// Apply applies one entry.
func (f *FSM) Apply(l *raft.Log) any {
	return f.ApplyBatch([]*raft.Log{l})[0]
}

// ApplyBatch applies a batch of entries in one transaction. The result for
// each entry is what the command handler returned: a value or an error the
// server passes to the client.
//
// An entry the FSM cannot apply (a payload that does not decode, a command
// type this binary does not know, e.g. from a newer leader during a rolling
// upgrade, or a handler that panics) gets an error result and changes
// nothing; the entries after it are applied normally. This is the same on
// every server and on every replay, because it depends only on the entry
// and the state before it: the alternative, stopping the process, would
// stop every server at the same index for good.
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	st := f.State()
	out := make([]any, len(logs))
	txn := st.db.Txn(true)
	var types []MessageType
	var events []model.LogEvent
	for i, l := range logs {
		res, typ, evs, ok := f.applyEntry(st, txn, l)
		if !ok {
			// Part of the failed entry may be in txn. Start again one
			// transaction per entry, so that exactly the failed entries
			// are left out; batches differ between servers, entries do not.
			txn.Abort()
			st.tokens.abort()
			return f.applyEach(st, logs)
		}
		out[i] = res
		if typ != 0 {
			types = append(types, typ)
		}
		events = append(events, evs...)
	}
	txn.Commit()
	st.commitTokens()
	f.setApplied(logs)
	f.notify(types)
	f.emit(events)
	return out
}

// applyEach applies the entries one transaction each; an entry that fails
// is aborted alone and answered with its error.
func (f *FSM) applyEach(st *StateStore, logs []*raft.Log) []any {
	out := make([]any, len(logs))
	var types []MessageType
	var events []model.LogEvent
	for i, l := range logs {
		txn := st.db.Txn(true)
		res, typ, evs, ok := f.applyEntry(st, txn, l)
		out[i] = res
		if !ok {
			txn.Abort()
			st.tokens.abort()
			continue
		}
		txn.Commit()
		st.commitTokens()
		if typ != 0 {
			types = append(types, typ)
		}
		events = append(events, evs...)
	}
	f.setApplied(logs)
	f.notify(types)
	f.emit(events)
	return out
}

func (f *FSM) notify(types []MessageType) {
	if f.onApply != nil && len(types) > 0 {
		f.onApply(types)
	}
}

// applyEntry applies one entry inside txn. ok is false when the handler
// panicked: txn then holds part of the entry and must be aborted. An entry
// that does not decode is refused before anything is written (ok true,
// nothing to undo).
func (f *FSM) applyEntry(st *StateStore, txn *memdb.Txn, l *raft.Log) (res any, typ MessageType, events []model.LogEvent, ok bool) {
	if l.Type != raft.LogCommand {
		return nil, 0, nil, true
	}
	cmd, err := decodeAt(l.Data, f.level)
	if err != nil {
		f.logf("raftstore: log index %d refused: %v", l.Index, err)
		return model.Errorf(model.PBSESystem, "log entry %d cannot be applied: %v", l.Index, err), 0, nil, true
	}
	defer func() {
		if p := recover(); p != nil {
			f.logf("raftstore: log index %d (%s) refused: apply panicked: %v\n%s", l.Index, cmd.Type(), p, debug.Stack())
			res, typ, events, ok = model.Errorf(model.PBSESystem, "log entry %d (%s) cannot be applied", l.Index, cmd.Type()), 0, nil, false
		}
	}()
	w := &writer{txn: txn, index: l.Index, appended: l.AppendedAt.Unix(), pack: st.pack, tokens: st.tokens}
	res = w.apply(cmd)
	w.resvSweep()
	w.flushAcct()
	return res, cmd.Type(), w.events, true
}

func (f *FSM) logf(format string, args ...any) {
	if f.logger != nil {
		f.logger.Printf(format, args...)
	}
}

// Snapshot captures the state for Raft's snapshot store. The memdb snapshot
// is taken here (cheap, MVCC); Persist serializes it without blocking Apply.
func (f *FSM) Snapshot() (raft.FSMSnapshot, error) {
	return &fsmSnapshot{snap: f.State().Snapshot()}, nil
}

// Restore replaces the state with a snapshot's.
func (f *FSM) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	st, err := NewStateStore()
	if err != nil {
		return err
	}
	if err := readSnapshot(rc, st); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.mu.Lock()
	f.state = st
	f.mu.Unlock()
	if f.restoredIndex != nil {
		f.applied.Store(f.restoredIndex())
	}
	return nil
}

type fsmSnapshot struct {
	snap *StateSnapshot
}

// snapshotRecord is one line of the snapshot stream.
type snapshotRecord struct {
	Kind  string          `json:"k"`
	Value json.RawMessage `json:"v"`
}

const snapshotVersion = 1

func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	enc := json.NewEncoder(sink)
	write := func(kind string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return enc.Encode(snapshotRecord{Kind: kind, Value: b})
	}
	err := func() error {
		if err := write("version", snapshotVersion); err != nil {
			return err
		}
		if err := write("meta", s.snap.meta()); err != nil {
			return err
		}
		for _, v := range s.snap.Vnodes() {
			if err := write("vnode", v); err != nil {
				return err
			}
		}
		for _, j := range s.snap.JobRows() {
			if err := write("job", j); err != nil {
				return err
			}
		}
		// Finished subjobs are rebuilt one at a time from their compact
		// records (subjob_history.go) and written as the full jobs they
		// are, the record every version reads.
		if err := s.snap.eachFinishedSubjob(func(j *model.Job) error { return write("job", j) }); err != nil {
			return err
		}
		if err := s.snap.persistProvision(write); err != nil { // provisioning tables
			return err
		}
		if err := s.snap.persistAcct(write); err != nil {
			return err
		}
		if err := s.snap.persistResvs(write); err != nil { // reservations
			return err
		}
		if err := s.snap.persistServers(write); err != nil { // servers.go
			return err
		}
		if err := s.snap.persistFairshare(write); err != nil { // apply_fairshare.go
			return err
		}
		for _, ti := range s.snap.tableIndexes() {
			if err := write("index", ti); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		sink.Cancel()
		return fmt.Errorf("persist snapshot: %w", err)
	}
	return sink.Close()
}

func (s *fsmSnapshot) Release() {}

func readSnapshot(r io.Reader, st *StateStore) error {
	dec := json.NewDecoder(r)
	txn := st.db.Txn(true)
	defer txn.Abort()
	var acct []*model.AcctRecord
	for {
		var rec snapshotRecord
		if err := dec.Decode(&rec); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		var obj any
		var table string
		switch rec.Kind {
		case "version":
			var v int
			if err := json.Unmarshal(rec.Value, &v); err != nil || v != snapshotVersion {
				return fmt.Errorf("unsupported snapshot version %s", rec.Value)
			}
			continue
		case "meta":
			obj, table = &meta{}, tableMeta
		case "vnode":
			obj, table = newVnode(), tableVnodes
		case "job":
			obj, table = newJob(), tableJobs
		case "index":
			obj, table = &tableIndex{}, tableIndexes
		case "provop":
			obj, table = &model.ProvOp{}, tableProvOps
		case "provstat":
			obj, table = &model.ProvStat{}, tableProvStats
		case "acct":
			obj, table = &model.AcctRecord{}, tableAcct
		case "resv":
			obj, table = &model.Reservation{}, tableResvs
		case "server":
			obj, table = &ServerRecord{}, tableServers
		case "fsusage":
			obj, table = &FairshareUsage{}, tableFSUsage
		case "fsclock":
			obj, table = &FairshareClock{}, tableFSClock
		default:
			return fmt.Errorf("unknown snapshot record %q", rec.Kind)
		}
		if err := json.Unmarshal(rec.Value, obj); err != nil {
			return fmt.Errorf("decode %s: %w", rec.Kind, err)
		}
		if r, ok := obj.(*model.AcctRecord); ok {
			acct = append(acct, r) // chunked below, in Seq order
			continue
		}
		if j, ok := obj.(*model.Job); ok {
			st.pack.job(j) // as compact as the jobs the log stored
			st.tokens.add(j)
			if isFinishedSubjob(j) {
				// Snapshots of every version hold finished subjobs
				// as full jobs; the store keeps them compact.
				if err := putDone(txn, st.pack.finished(j)); err != nil {
					return fmt.Errorf("insert %s: %w", rec.Kind, err)
				}
				continue
			}
		}
		if err := txn.Insert(table, obj); err != nil {
			return fmt.Errorf("insert %s: %w", rec.Kind, err)
		}
	}
	if err := restoreAcct(txn, acct); err != nil {
		return err
	}
	if err := rebuildStateGroups(txn); err != nil {
		return err
	}
	txn.Commit()
	return nil
}
