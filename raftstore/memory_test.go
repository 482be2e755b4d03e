package raftstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

// qsubJob is a held job as the server builds it from `qsub -h` with a
// short script: the fields qsub and the submission rules fill in, the
// Variable_List qsub sends (PBS_O_*), a script of a few lines.
func qsubJob(i int) *model.Job {
	defs := model.BuiltinResources()
	sel, _ := model.ParseSelect("1:ncpus=1", defs)
	return &model.Job{
		Name: "bench", Owner: "alice@login1", User: "alice", Group: "users", UID: 1000, GID: 100,
		Queue: "workq", Priority: 0, Hold: "u", Join: "n", Keep: "n", Rerun: true,
		Project: "_pbs_project_default", Mail: "a", Checkpt: "u",
		ResourceList: map[string]string{"ncpus": "1", "nodect": "1", "select": "1:ncpus=1", "place": "free"},
		Select:       sel, Place: model.Place{Arrangement: model.PlaceFree},
		Env: []model.EnvVar{
			{Name: "PBS_O_HOME", Value: "/home/alice"}, {Name: "PBS_O_LANG", Value: "C.UTF-8"},
			{Name: "PBS_O_LOGNAME", Value: "alice"}, {Name: "PBS_O_PATH", Value: "/usr/local/bin:/usr/bin:/bin"},
			{Name: "PBS_O_MAIL", Value: "/var/mail/alice"}, {Name: "PBS_O_SHELL", Value: "/bin/bash"},
			{Name: "PBS_O_SYSTEM", Value: "Linux"}, {Name: "PBS_O_HOST", Value: "login1"},
			{Name: "PBS_O_WORKDIR", Value: "/home/alice/run"},
		},
		Script:     "#!/bin/sh\n#PBS -N bench\ncd $PBS_O_WORKDIR\n./step.sh input.dat\n",
		SubmitArgs: "-h job.sh", SubmitHost: "login1",
		// Random like the tokens qsub makes: the token index's radix
		// tree costs more per job than for sequential keys.
		Token: fmt.Sprintf("%016x%016x", rand.New(rand.NewPCG(uint64(i), 1)).Uint64(), uint64(i)*0x9e3779b97f4a7c15),
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// memoryPerJob stores n held jobs in an FSM and returns the growth of the
// live heap per job. The FSM is kept alive until after the measurement.
func memoryPerJob(tb testing.TB, n int) float64 {
	h := newHarness(&testing.T{})
	// The accounting table is bounded (maxAcctRecords): fill it first so
	// that its fixed cost is not counted against the jobs: submit as many
	// jobs before measuring (their records make way for the measured ones).
	idx := uint64(100)
	// submit applies jobs from..to-1 in group commits of 64, as Raft
	// delivers a burst of submissions.
	submit := func(from, to int) {
		batch := make([]*raft.Log, 0, 64)
		for i := from; i < to; i++ {
			data, _ := Encode(&SubmitJob{Job: qsubJob(i), Now: 1_700_000_000})
			idx++
			batch = append(batch, &raft.Log{Index: idx, Type: raft.LogCommand, Data: data})
			if len(batch) == cap(batch) || i == to-1 {
				h.fsm.ApplyBatch(batch)
				batch = batch[:0]
			}
		}
	}
	submit(n, n+maxAcctRecords)
	before := heapInUse()
	submit(0, n)
	after := heapInUse()
	if p := os.Getenv("STRATA_HEAP_PROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	held := h.fsm.State().Snapshot().JobsInState(model.StateHeld)
	if got := len(held); got != n+maxAcctRecords {
		tb.Fatalf("%d held jobs stored, want %d", got, n+maxAcctRecords)
	}
	for _, j := range held {
		if j.JobExt != nil {
			tb.Fatalf("held job %s has a JobExt (%+v): a plain qsub job must not pay for one", j.ID, *j.JobExt)
		}
	}
	runtime.KeepAlive(h)
	return float64(int64(after)-int64(before)) / float64(n)
}

// TestMemoryPerQueuedJob measures the state store's memory per queued job
// (20,000 held jobs as qsub submits them, random tokens, group commits of
// 64) and fails above 1,700 bytes. The compact representation brought it
// from 4,280 to 2,524 bytes, the submission tokens' map in place of their
// go-memdb index (tokens.go) to about 2,145 (2,273 once later fields had
// pushed model.Job into the 1,152-byte size class); model.JobExt (the
// attributes queued jobs rarely set, out of the row: 704 bytes) and the
// jobs of each state in groups instead of go-memdb's state index
// (index_state.go) to about 1,505. The 2 KiB is for the server's
// RSS, about twice this at GOGC=100 (docs/performance.md): what remains
// here is the row, the id index (about 450 bytes: a radix leaf and node,
// each with its own watch channel) and the job's own strings.
func TestMemoryPerQueuedJob(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 20,000 jobs")
	}
	per := memoryPerJob(t, 20000)
	t.Logf("state store: %.0f bytes per held job", per)
	if per > 1700 {
		t.Errorf("%.0f bytes per held job, want at most 1,700", per)
	}
}

// memoryPerFinishedSubjob runs n subjobs of one array to the end on 100
// hosts (plans of 100 starts, one started and one ended event per
// subjob, resources_used reported) and returns the growth of the live
// heap per finished subjob. compact false stores full rows, as before
// finished subjobs had compact records. A first array of 5,000 subjobs
// fills the bounded accounting table (two records per subjob), whose
// fixed cost is not the subjobs'.
func memoryPerFinishedSubjob(tb testing.TB, n int, compact bool) float64 {
	h := newHarness(&testing.T{})
	if !compact {
		h.fsm.State().pack = nil
	}
	const hosts = 100
	for i := 0; i < hosts; i++ {
		registerNode(h, fmt.Sprintf("node%d", i), "1")
	}
	now := int64(1_700_000_000)
	runArray(tb, h, maxAcctRecords/2, hosts, &now)
	before := heapInUse()
	runArray(tb, h, n, hosts, &now)
	after := heapInUse()
	if p := os.Getenv("STRATA_HEAP_PROFILE_SUBJOBS"); p != "" && compact {
		if f, err := os.Create(p); err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	runtime.KeepAlive(h)
	return float64(int64(after)-int64(before)) / float64(n)
}

// runArray submits an array of n subjobs and runs every one to its end.
func runArray(tb testing.TB, h *harness, n, hosts int, now *int64) {
	j := qsubJob(int(*now))
	j.Hold = ""
	j.Array, _ = model.ParseArraySpec(fmt.Sprintf("1-%d", n))
	pid := h.apply(&SubmitJob{Job: j, Now: *now}).(string)
	for next := 1; next <= n; next += hosts {
		var runs []model.RunDecision
		for k := 0; k < hosts && next+k <= n; k++ {
			runs = append(runs, model.RunDecision{JobID: model.SubjobID(pid, int64(next+k)), Exec: oneChunk(fmt.Sprintf("node%d", k), 1)})
		}
		*now++
		h.apply(&ApplyPlan{Now: *now, Runs: runs})
		for k, r := range runs {
			host := fmt.Sprintf("node%d", k)
			h.apply(&JobEvents{Host: host, Now: *now, Events: []model.JobEvent{{JobID: r.JobID, Kind: "started", Run: 1, SessionID: 1000 + k}}})
			h.apply(&JobEvents{Host: host, Now: *now + 10, Events: []model.JobEvent{{JobID: r.JobID, Kind: "ended", Run: 1,
				Used: map[string]string{"cput": "00:00:00", "mem": "0kb", "ncpus": "1", "vmem": "0kb", "walltime": "00:00:10"}}}})
		}
	}
	if p := h.snap().Job(pid); p.State != model.StateFinished {
		tb.Fatalf("array %s after all subjobs ended", p.State)
	}
}

// TestMemoryPerFinishedSubjob measures what a finished subjob costs the
// state store's live heap (10,000 subjobs on 100 hosts): 3.9 KB as a full
// job row with four index entries, about 680 bytes as a compact record in
// a chunk (subjob_history.go, subjob_chunks.go). It fails above 1 KiB; -v
// also measures full rows.
func TestMemoryPerFinishedSubjob(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20,000 subjobs")
	}
	per := memoryPerFinishedSubjob(t, 10000, true)
	t.Logf("state store: %.0f bytes per finished subjob (compact record)", per)
	if testing.Verbose() {
		t.Logf("as full rows: %.0f bytes per finished subjob", memoryPerFinishedSubjob(t, 10000, false))
	}
	if per > 1024 {
		t.Errorf("%.0f bytes per finished subjob, want at most 1 KiB", per)
	}
}
