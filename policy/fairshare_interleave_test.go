package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestFairshareInterleave: ranking charges each job's expected usage, so
// entities with equal usage alternate, an entity far behind keeps its
// place until its charges catch up, and higher keys (by_queue, formula)
// bound the interleaving.
func TestFairshareInterleave(t *testing.T) {
	defs := model.BuiltinResources()
	mk := func(spec string) []*model.Job {
		// "user:queue:walltime" per job, in submission order
		var out []*model.Job
		for i, f := range strings.Fields(spec) {
			p := strings.SplitN(f, ":", 3)
			out = append(out, &model.Job{ID: fmt.Sprintf("%d.s", i+1), Seq: int64(i + 1), User: p[0], Queue: p[1],
				ResourceList: map[string]string{"ncpus": "1", "walltime": p[2]}})
		}
		return out
	}
	ids := func(js []*model.Job) string {
		var out []string
		for _, j := range js {
			out = append(out, j.User+j.ID[:strings.IndexByte(j.ID, '.')])
		}
		return strings.Join(out, " ")
	}
	tree := func(usage map[string]float64) *Fairshare {
		return NewFairshare(&model.FairshareConfig{Enabled: true, Tree: []string{"a 1 root 1", "b 2 root 1"}}, usage, []string{"a", "b"})
	}
	cases := []struct {
		name string
		o    JobOrder
		jobs string
		want string
	}{
		{"equal usage alternates", JobOrder{Fairshare: tree(nil)},
			"a:q:01:00:00 a:q:01:00:00 a:q:01:00:00 b:q:01:00:00 b:q:01:00:00 b:q:01:00:00", "a1 b4 a2 b5 a3 b6"},
		{"a far ahead: b first until charged", JobOrder{Fairshare: tree(map[string]float64{"a": 5000})},
			"a:q:01:00:00 a:q:01:00:00 b:q:01:00:00 b:q:01:00:00 b:q:01:00:00", "b3 b4 a1 b5 a2"},
		{"long jobs charge more", JobOrder{Fairshare: tree(nil)},
			"a:q:10:00:00 a:q:10:00:00 b:q:01:00:00 b:q:01:00:00 b:q:01:00:00", "a1 b3 b4 b5 a2"},
		{"by_queue: queues are not mixed", JobOrder{Fairshare: tree(nil), ByQueue: true, QueuePriority: map[string]int{"hi": 10}},
			"a:q:01:00:00 a:hi:01:00:00 b:q:01:00:00 b:hi:01:00:00 a:hi:01:00:00", "a2 b4 a5 a1 b3"},
	}
	for _, tc := range cases {
		tc.o.Defs = defs
		if got := ids(tc.o.SortJobs(mk(tc.jobs))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
