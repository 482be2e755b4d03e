package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// preemptSnapshot is strictSnapshot (20,000 queued on 2,000 vnodes,
// strict_ordering, backfill_depth 10) with preemption on and a full
// cluster: every vnode that ran nothing gets a running job on all its
// cpus, every running job can be preempted, and one queued job in fifty
// is in an express queue, so the cycle has to choose victims for each.
func preemptSnapshot(tb testing.TB, nv, nj int, order string) *Snapshot {
	s := strictSnapshot(tb, nv, nj, 10)
	rng := rand.New(rand.NewPCG(5, 6))
	for i, v := range s.Vnodes {
		if len(v.Jobs) > 0 || v.State&model.Unavailable != 0 {
			continue
		}
		id := fmt.Sprintf("%d.svr", 800000+i)
		n := v.Capacity["ncpus"]
		running(id, n)(v)
		wall := int64(600 + rng.IntN(86400))
		s.Running = append(s.Running, &model.Job{ID: id, State: model.StateRunning, Queue: "workq",
			Stime: s.Now - rng.Int64N(wall), ResourceList: map[string]string{"walltime": model.FormatDuration(wall)},
			Exec: []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: v.Name, Host: v.Host, Amounts: map[string]float64{"ncpus": n}}}}}})
	}
	for i, j := range s.Running {
		cp := *j
		cp.Substate, cp.Rerun, cp.Seq = model.SubRunning, true, int64(900000+i)
		s.Running[i] = &cp
	}
	for i, j := range s.Queued {
		if i%50 == 0 {
			j.Queue = "express"
		}
	}
	s.Queues["express"] = Queue{Name: "express", Priority: 200}
	prio, _ := policy.ParsePreemptPrio(model.DefaultPreemptPrio)
	steps, _ := policy.ParsePreemptOrder(order)
	s.Config.Preempt = &PreemptPolicy{Prio: prio, Order: steps, QueuePrio: model.DefaultPreemptQueuePrio}
	return s
}

// One cycle with preemption on at 20,000 queued jobs on 2,000 full
// vnodes, 400 of the jobs express: each express job that does not fit
// chooses its victims (the same plan every iteration, as Schedule is a
// pure function of the snapshot).
func BenchmarkSchedulePreempt20kJobs2kVnodes(b *testing.B) {
	s := preemptSnapshot(b, 2000, 20000, "SCR")
	p := Schedule(s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Schedule(s)
	}
	b.ReportMetric(float64(len(p.Runs)), "runs")
	b.ReportMetric(float64(len(p.Preempts)), "preempts")
}

// The same snapshot with preemptive_sched off: the cost of preemption is
// the difference.
func BenchmarkSchedulePreemptOff20kJobs2kVnodes(b *testing.B) {
	s := preemptSnapshot(b, 2000, 20000, "SCR")
	s.Config.Preempt = nil
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Schedule(s)
	}
}

// TestPreemptSnapshotPreempts keeps the benchmark honest: its cycle does
// preempt, every victim is a running job of the normal queue, and no job
// is chosen twice.
func TestPreemptSnapshotPreempts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-job snapshot")
	}
	s := preemptSnapshot(t, 2000, 20000, "SCR")
	p := Schedule(s)
	if len(p.Preempts) == 0 {
		t.Fatal("no preemption in the benchmark's cycle")
	}
	seen := map[string]bool{}
	running := map[string]bool{}
	for _, j := range s.Running {
		running[j.ID] = true
	}
	for _, x := range p.Preempts {
		if seen[x.JobID] || !running[x.JobID] || x.Method != model.PreemptSuspend {
			t.Fatalf("bad preemption %+v", x)
		}
		seen[x.JobID] = true
	}
	t.Logf("%d runs, %d preemptions", len(p.Runs), len(p.Preempts))
}
