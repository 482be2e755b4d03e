package schedglue

import (
	"fmt"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// Harness runs scheduling cycles over a real FSM in memory, as Nomad's
// scheduler.Harness does: commands are encoded and applied exactly as Raft
// delivers committed entries (raftstore.Encode, FSM.Apply), a cycle reads
// an MVCC snapshot, runs scheduler.Schedule and applies the plan as the
// same ApplyPlan command the leader commits. Tests assert on the state
// that results; the simulator replays traces through it.
//
// What the leader adds around a cycle is not here: its timing, its log
// lines and the runjob hooks (external processes that may veto a run).
type Harness struct {
	fsm   *raftstore.FSM
	index uint64
}

// NewHarness returns a harness whose FSM holds cfg, with the defaults a
// server's configuration has: a name ("svr", so job ids are "<seq>.svr"),
// the built-in resources and the PBS sequence limit.
func NewHarness(cfg model.ServerConfig) (*Harness, error) {
	f, err := raftstore.NewFSM(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("harness FSM: %w", err)
	}
	h := &Harness{fsm: f}
	if cfg.Name == "" {
		cfg.Name = "svr"
	}
	if cfg.Defs == nil {
		cfg.Defs = model.BuiltinResources()
	}
	if cfg.MaxJobSequenceID == 0 {
		cfg.MaxJobSequenceID = 9999999
	}
	if _, err := h.Apply(&raftstore.SetServerConfig{Config: cfg, Now: 1}); err != nil {
		return nil, err
	}
	return h, nil
}

// Apply commits one command as the next log entry and returns the FSM's
// result. A result that is an error (a refusal such as a PBS error) is
// returned as the error.
func (h *Harness) Apply(c raftstore.Command) (any, error) {
	data, err := raftstore.Encode(c)
	if err != nil {
		return nil, err
	}
	h.index++
	res := h.fsm.Apply(&raft.Log{Index: h.index, Type: raft.LogCommand, Data: data})
	if err, ok := res.(error); ok {
		return nil, fmt.Errorf("apply %s: %w", c.Type(), err)
	}
	return res, nil
}

// State is a read-only snapshot of the current state.
func (h *Harness) State() *raftstore.StateSnapshot { return h.fsm.State().Snapshot() }

// CycleResult is what one cycle decided and what the FSM made of it.
type CycleResult struct {
	In   *scheduler.Snapshot
	Plan *scheduler.Plan
	// Started is how many run decisions the FSM applied: fewer than
	// len(Plan.Runs) when a decision no longer fits the state (or an AOE
	// mismatch held the job), as the FSM re-checks each one.
	Started int
}

// Cycle runs one scheduling cycle at time now and applies its plan (when
// it changes anything, as the leader does). The state shows the outcome.
func (h *Harness) Cycle(now int64) (CycleResult, error) {
	in := Input(h.State(), now)
	res := CycleResult{In: in, Plan: scheduler.Schedule(in)}
	if res.Plan.Empty() {
		return res, nil
	}
	out, err := h.Apply(Command(in, res.Plan))
	if err != nil {
		return res, err
	}
	res.Started, _ = out.(int)
	return res, nil
}

// ApplyBatch commits commands as consecutive log entries applied in one
// batch (one state-store transaction), as Raft delivers a group commit;
// it returns the first refusal. Large fixtures (benchmarks with a million
// jobs) load through it.
func (h *Harness) ApplyBatch(cmds []raftstore.Command) error {
	logs := make([]*raft.Log, len(cmds))
	for i, c := range cmds {
		data, err := raftstore.Encode(c)
		if err != nil {
			return err
		}
		h.index++
		logs[i] = &raft.Log{Index: h.index, Type: raft.LogCommand, Data: data}
	}
	for i, res := range h.fsm.ApplyBatch(logs) {
		if err, ok := res.(error); ok {
			return fmt.Errorf("apply %s: %w", cmds[i].Type(), err)
		}
	}
	return nil
}
