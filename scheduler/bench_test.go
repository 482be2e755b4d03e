package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
	mix := []struct {
		pct   int
		sel   string
		place string
	}{
		{40, "1:ncpus=1:mem=2gb", ""},
		{15, "1:ncpus=1:mem=4gb", ""},
		{15, "1:ncpus=4:mem=8gb", ""},
		{8, "4:ncpus=8:mem=16gb", "free"},
		{5, "2:ncpus=16:mpiprocs=16", "scatter"},
		{5, "1:ncpus=32", "excl"},
		{3, "2:ncpus=32", "scatter:excl"},
		{3, "4:ncpus=4", "pack"},
		{4, "1:ncpus=2:host=n%04d", ""},
		{2, "1:ncpus=64", ""},
	}
	var jobs []*model.Job
	for seq := int64(1); len(jobs) < nj; seq++ {
		r := rng.IntN(100)
		for _, m := range mix {
			if r >= m.pct {
				r -= m.pct
				continue
			}
			sel := m.sel
			if m.sel == "1:ncpus=2:host=n%04d" {
				sel = fmt.Sprintf(m.sel, rng.IntN(nv-multi))
			}
			var opts []jobOpt
			if rng.IntN(10) == 0 {
				opts = append(opts, inQueue("hi"))
			}
			opts = append(opts, jobPrio(rng.IntN(3)))
			jobs = append(jobs, job(tb, seq, sel, m.place, opts...))
			break
		}
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
