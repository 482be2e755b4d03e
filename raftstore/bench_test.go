package raftstore

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// BenchmarkFSMApplySubmit measures applying one SubmitJob entry (decode plus
// state-store transaction), the FSM's share of a submission.
func BenchmarkFSMApplySubmit(b *testing.B) {
	h := newHarness(&testing.T{})
	entries := make([]*raft.Log, b.N)
	for i := range entries {
		data, _ := Encode(&SubmitJob{Job: testJob(fmt.Sprint("t", i)), Now: 1})
		entries[i] = &raft.Log{Index: uint64(i + 10), Type: raft.LogCommand, Data: data}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.fsm.Apply(entries[i])
	}
}

// BenchmarkRaftSubmit1 measures one durable submission at a time through
// real Raft on disk (fsync on): the latency floor of a lone qsub.
func BenchmarkRaftSubmit1(b *testing.B) { benchRaftSubmit(b, 1) }

// BenchmarkRaftSubmit64 measures durable submissions with 64 proposals in
// flight: the group-commit path.
func BenchmarkRaftSubmit64(b *testing.B) { benchRaftSubmit(b, 64) }

func benchRaftSubmit(b *testing.B, clients int) {
	t := &testing.T{}
	n := openNode(t, b.TempDir(), freeAddr(t), 1<<20)
	defer n.Shutdown()
	n.Apply(&SetServerConfig{Config: model.ServerConfig{Name: "svr", Defs: model.BuiltinResources()}}, time.Second)
	var next int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := atomic.AddInt64(&next, 1)
				if i > int64(b.N) {
					return
				}
				if _, err := n.Apply(&SubmitJob{Job: testJob(fmt.Sprint("t", i)), Now: 1}, 5*time.Second); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
