package raftstore

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"sync"

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
}

// NewFSM returns an FSM over an empty state store.
func NewFSM(logger *log.Logger, onApply func([]MessageType)) (*FSM, error) {
	st, err := NewStateStore()
	if err != nil {
		return nil, err
	}
	return &FSM{state: st, logger: logger, onApply: onApply}, nil
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
func (f *FSM) ApplyBatch(logs []*raft.Log) []any {
	st := f.State()
	txn := st.db.Txn(true)
	out := make([]any, len(logs))
	var types []MessageType
	for i, l := range logs {
		if l.Type != raft.LogCommand {
			continue
		}
		cmd, err := decode(l.Data)
		if err != nil {
			// A command we cannot read means this binary is older than the
			// log or the log is corrupt; applying around it would let this
			// server diverge from the others.
			panic(fmt.Sprintf("raftstore: log index %d: %v", l.Index, err))
		}
		w := &writer{txn: txn, index: l.Index}
		out[i] = w.apply(cmd)
		w.flushAcct()
		types = append(types, cmd.Type())
	}
	txn.Commit()
	if f.onApply != nil && len(types) > 0 {
		f.onApply(types)
	}
	return out
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
	if err := readSnapshot(rc, st.db); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	f.mu.Lock()
	f.state = st
	f.mu.Unlock()
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
		for _, j := range s.snap.Jobs() {
			if err := write("job", j); err != nil {
				return err
			}
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

func readSnapshot(r io.Reader, db *memdb.MemDB) error {
	dec := json.NewDecoder(r)
	txn := db.Txn(true)
	defer txn.Abort()
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
		default:
			return fmt.Errorf("unknown snapshot record %q", rec.Kind)
		}
		if err := json.Unmarshal(rec.Value, obj); err != nil {
			return fmt.Errorf("decode %s: %w", rec.Kind, err)
		}
		if err := txn.Insert(table, obj); err != nil {
			return fmt.Errorf("insert %s: %w", rec.Kind, err)
		}
	}
	txn.Commit()
	return nil
}
