package policy

import (
	"math"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
)

// FuzzFairshareTree: any resource_group text either is refused or gives a
// tree whose lines print back the same, whose leaves' shares of the
// machine sum to at most 1, and whose ranking is a permutation.
func FuzzFairshareTree(f *testing.F) {
	f.Add("grpA 1 root 60\ngrpB 2 root 40\nalice 3 grpA 1\nbob 4 grpB 0\n", "alice,bob,carol", 1000.0)
	f.Add("# comment\nx 1 root 0\ny 2 x 5\n", "y", 0.0)
	f.Fuzz(func(t *testing.T, text, entities string, usage float64) {
		var nodes []model.ShareNode
		var err error
		fuzzcheck.Bounded(t, len(text), func() { nodes, err = model.ParseResourceGroupFile(text) })
		if err != nil {
			return
		}
		var lines []string
		for _, n := range nodes {
			back, err := model.ParseShareLine(n.String())
			if err != nil || back != n {
				t.Fatalf("%+v prints as %q, which reads back as %+v (%v)", n, n.String(), back, err)
			}
			lines = append(lines, n.String())
		}
		if math.IsNaN(usage) || math.IsInf(usage, 0) {
			usage = 0
		}
		es := strings.Split(entities, ",")
		u := map[string]float64{}
		for _, e := range es {
			u[e] = math.Abs(usage)
		}
		fs := NewFairshare(&model.FairshareConfig{Enabled: true, Tree: lines}, u, es)
		seen := map[int]bool{}
		total := 0.0
		for _, e := range fs.Entries() {
			if e.Rank > 0 {
				if seen[e.Rank] {
					t.Fatalf("rank %d twice", e.Rank)
				}
				seen[e.Rank] = true
			}
			if e.Perc < 0 || e.Perc > 1+1e-9 || math.IsNaN(e.Factor) {
				t.Fatalf("entry %+v", e)
			}
		}
		for _, n := range fs.nodes {
			if len(n.children) == 0 {
				total += n.perc
			}
		}
		if total > 1+1e-9 {
			t.Fatalf("leaves hold %v of the machine", total)
		}
	})
}
