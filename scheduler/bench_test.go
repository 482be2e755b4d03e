package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/strata-hpc/strata/internal/benchmix"
	"github.com/strata-hpc/strata/model"
)

// benchSnapshot builds a cluster of nv vnodes and nj queued jobs with a
// realistic mix: mostly 1-cpu jobs, some multi-chunk, scatter, pack and
// exclusive jobs, a few pinned to a host and a few that can never run.
// About 5% of the vnodes are multi-vnode hosts (4 vnodes each), 2% are
// down or offline and a quarter already run work. Demand exceeds the
// cluster, so the cycle also has to reject quickly once it is full.
func benchSnapshot(tb testing.TB, nv, nj int) *Snapshot {
	rng := rand.New(rand.NewPCG(1, 2))
	var vnodes []*model.Vnode
	multi := nv / 20
	for i := 0; len(vnodes) < multi; i++ {
		for k := 0; k < 4; k++ {
			vnodes = append(vnodes, vnode(fmt.Sprintf("big%03d[%d]", i, k), "ncpus=16,mem=64gb", onHost(fmt.Sprintf("big%03d", i))))
		}
	}
	for i := 0; len(vnodes) < nv; i++ {
		var opts []vnodeOpt
		switch r := rng.IntN(100); {
		case r < 1:
			opts = append(opts, withState(model.NodeOffline))
		case r < 2:
			opts = append(opts, withState(model.NodeDown))
		case r < 27:
			opts = append(opts, running(fmt.Sprintf("%d.svr", 900000+i), float64(1+rng.IntN(32))))
		}
		opts = append(opts, prio(rng.IntN(3)))
		vnodes = append(vnodes, vnode(fmt.Sprintf("n%04d", i), "ncpus=32,mem=128gb", opts...))
	}
	mix := benchmix.Mix()
	var jobs []*model.Job
	for seq := int64(1); len(jobs) < nj; seq++ {
		k := benchmix.Pick(mix, rng.IntN(100))
		sel := k.Select
		if k.Pinned {
			sel = fmt.Sprintf(sel, fmt.Sprintf("n%04d", rng.IntN(nv-multi)))
		}
		var opts []jobOpt
		if rng.IntN(10) == 0 {
			opts = append(opts, inQueue("hi"))
		}
		opts = append(opts, jobPrio(rng.IntN(3)))
		jobs = append(jobs, job(tb, seq, sel, k.Place, opts...))
	}
	s := snapshot(vnodes, jobs...)
	s.Queues["hi"] = Queue{Name: "hi", Priority: 100}
	s.Config.ByQueue = true
	return s
}

func benchSchedule(b *testing.B, nv, nj int, keys ...string) {
	s := benchSnapshot(b, nv, nj)
	if len(keys) > 0 {
		withKeys(b, s, keys...)
	}
	p := Schedule(s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Schedule(s)
	}
	b.ReportMetric(float64(len(p.Runs)), "runs")
	b.ReportMetric(float64(len(p.Comments)), "comments")
}

func BenchmarkSchedule10kJobs2kVnodes(b *testing.B) { benchSchedule(b, 2000, 10000) }
func BenchmarkSchedule20kJobs2kVnodes(b *testing.B) { benchSchedule(b, 2000, 20000) }

// With an unused key the vnode order changes after every placement.
func BenchmarkSchedule10kJobs2kVnodesUnusedSort(b *testing.B) {
	benchSchedule(b, 2000, 10000, "ncpus HIGH unused")
}

// strictSnapshot is benchSnapshot with strict_ordering and backfill_depth
// 10: every vnode's running work becomes a running job with a start and a
// walltime, so the calendar has a release per job, and queued jobs get
// walltimes (a tenth of them none, which the default walltime covers).
func strictSnapshot(tb testing.TB, nv, nj, depth int) *Snapshot {
	s := benchSnapshot(tb, nv, nj)
	rng := rand.New(rand.NewPCG(3, 4))
	s.Now = 1_000_000
	for _, v := range s.Vnodes {
		for id, n := range v.Jobs {
			wall := int64(600 + rng.IntN(86400))
			j := &model.Job{ID: id, State: model.StateRunning, Queue: "workq",
				Stime: s.Now - rng.Int64N(wall), ResourceList: map[string]string{"walltime": model.FormatDuration(wall)},
				Exec: []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: v.Name, Host: v.Host, Amounts: map[string]float64{"ncpus": float64(n)}}}}}}
			s.Running = append(s.Running, j)
		}
	}
	for _, j := range s.Queued {
		if rng.IntN(10) > 0 {
			j.ResourceList = map[string]string{"walltime": model.FormatDuration(int64(60 + rng.IntN(48*3600)))}
		}
	}
	s.Config.StrictOrdering = true
	s.Config.BackfillDepth = depth
	s.Config.DefaultWalltime = 3600
	return s
}

// A full cycle with strict_ordering and backfill_depth 10 at 20,000 queued
// jobs on 2,000 vnodes (Slurm's backfill pass: about 2 s at 20,000 jobs).
func BenchmarkScheduleStrictDepth10_20kJobs2kVnodes(b *testing.B) {
	s := strictSnapshot(b, 2000, 20000, 10)
	p := Schedule(s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Schedule(s)
	}
	top := 0
	for _, e := range p.Estimates {
		if e.Top {
			top++
		}
	}
	b.ReportMetric(float64(len(p.Runs)), "runs")
	b.ReportMetric(float64(top), "topjobs")
}

// The same with every blocked job a top job up to 100 (the admin guide's
// recommended ceiling), to show cost grows with top jobs, not with top
// jobs x cluster.
func BenchmarkScheduleStrictDepth100_20kJobs2kVnodes(b *testing.B) {
	s := strictSnapshot(b, 2000, 20000, 100)
	p := Schedule(s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Schedule(s)
	}
	b.ReportMetric(float64(len(p.Estimates)), "estimates")
}
