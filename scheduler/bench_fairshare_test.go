package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// BenchmarkScheduleFairshare20kJobs2kVnodes is the 20k x 2k cycle with
// fair_share on: 200 users in 10 groups, each with usage, and the share
// tree built afresh every cycle (as schedglue.Input does).
func BenchmarkScheduleFairshare20kJobs2kVnodes(b *testing.B) {
	s := benchSnapshot(b, 2000, 20000)
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
	tree := func() *policy.Fairshare {
		var entities []string
		for _, j := range s.Queued {
			entities = append(entities, j.User)
		}
		return policy.NewFairshare(cfg, usage, entities)
	}
	s.Config.Fairshare = tree()
	p := Schedule(s)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Config.Fairshare = tree()
		Schedule(s)
	}
	b.ReportMetric(float64(len(p.Runs)), "runs")
}
