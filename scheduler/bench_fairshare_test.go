package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// benchFairshare gives the queued jobs of s 200 users in 10 groups, each
// with usage, and returns what builds their share tree (schedglue.Input
// builds it afresh every cycle, so the benchmarks do too).
func benchFairshare(s *Snapshot) func() *policy.Fairshare {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := &model.FairshareConfig{Enabled: true}
	usage := map[string]float64{}
	for g := 0; g < 10; g++ {
		cfg.Tree = append(cfg.Tree, fmt.Sprintf("grp%d %d root %d", g, 1000+g, 10+g))
		for u := 0; u < 20; u++ {
			name := fmt.Sprintf("user%d_%d", g, u)
			cfg.Tree = append(cfg.Tree, fmt.Sprintf("%s %d grp%d %d", name, g*100+u, g, 1+u%3))
			usage[name] = float64(rng.IntN(1_000_000))
		}
	}
	for i, j := range s.Queued {
		j.User = fmt.Sprintf("user%d_%d", i%10, (i/10)%20)
	}
	return func() *policy.Fairshare {
		var entities []string
		for _, j := range s.Queued {
			entities = append(entities, j.User)
		}
		return policy.NewFairshare(cfg, usage, entities)
	}
}

// benchCycles runs the cycle of s with its share tree rebuilt each time.
func benchCycles(b *testing.B, s *Snapshot, tree func() *policy.Fairshare) {
	s.Config.Fairshare = tree()
	p := Schedule(s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Config.Fairshare = tree()
		Schedule(s)
	}
	b.ReportMetric(float64(len(p.Runs)), "runs")
	b.ReportMetric(float64(len(p.Preempts)), "preempts")
}

// BenchmarkScheduleFairshare20kJobs2kVnodes is the 20k x 2k cycle with
// fair_share on.
func BenchmarkScheduleFairshare20kJobs2kVnodes(b *testing.B) {
	s := benchSnapshot(b, 2000, 20000)
	benchCycles(b, s, benchFairshare(s))
}

// BenchmarkScheduleFairsharePreempt20kJobs2kVnodes is the figure:
// fair_share and preemption on together, strict ordering with backfill
// depth 10, 20,000 queued on 2,000 full vnodes, one job in fifty express.
func BenchmarkScheduleFairsharePreempt20kJobs2kVnodes(b *testing.B) {
	s := preemptSnapshot(b, 2000, 20000, "SCR")
	benchCycles(b, s, benchFairshare(s))
}
