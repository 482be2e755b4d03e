package policy

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func fsTree(t *testing.T, order bool, unknown int64, usage map[string]float64, entities ...string) *Fairshare {
	t.Helper()
	cfg := &model.FairshareConfig{Enabled: order, UnknownShares: &unknown, Tree: []string{
		"grpA 1 root 60", "grpB 2 root 40", "alice 11 grpA 1", "carol 12 grpA 3", "bob 21 grpB 1", "idle 22 grpB 0",
	}}
	return NewFairshare(cfg, usage, entities)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestFairshareFormulas: perc down the tree, usage up it, the rank of
// compare_path and the formula variables, as numbers.
func TestFairshareFormulas(t *testing.T) {
	usage := map[string]float64{"alice": 100, "carol": 100, "bob": 1000}
	f := fsTree(t, true, 0, usage, "dave")
	job := func(user string) *model.Job { return &model.Job{User: user} }
	cases := []struct {
		user      string
		perc      float64
		treeUsage float64
		rank      int
		noShares  bool
	}{
		// grpA has 60 of 100 shares; carol 3 of grpA's 4.
		{"carol", 0.45, 100.0 / 1202, 0, false},
		{"alice", 0.15, 100.0 / 1202, 1, false},
		{"bob", 0.40, 1000.0 / 1202, 2, false},
		// Unknown users hang under "unknown" (0 shares here); idle has 0
		// shares of its own. Without shares a node is least deserving.
		{"dave", 0, 1.0 / 1202, 4, true},
		{"idle", 0, 1.0 / 1202, 3, true},
	}
	for _, tc := range cases {
		j := job(tc.user)
		if got := f.Value(j, VarFairSharePerc); !near(got, tc.perc) {
			t.Errorf("%s: fair_share_perc %v, want %v", tc.user, got, tc.perc)
		}
		if got := f.Value(j, VarFairsharePerc); !near(got, tc.perc) {
			t.Errorf("%s: fairshare_perc alias %v", tc.user, got)
		}
		if got := f.Value(j, VarFairshareTreeUsage); !near(got, tc.treeUsage) {
			t.Errorf("%s: fairshare_tree_usage %v, want %v", tc.user, got, tc.treeUsage)
		}
		wantFactor := 0.0
		if tc.perc > 0 {
			wantFactor = math.Pow(2, -tc.treeUsage/tc.perc)
		}
		if got := f.Value(j, VarFairshareFactor); !near(got, wantFactor) {
			t.Errorf("%s: fairshare_factor %v, want %v", tc.user, got, wantFactor)
		}
		if got := f.Rank(j); got != tc.rank {
			t.Errorf("%s: rank %d, want %d", tc.user, got, tc.rank)
		}
		if got := f.NoShares(j); got != tc.noShares {
			t.Errorf("%s: no shares %v", tc.user, got)
		}
	}
	if p := f.Position(job("alice")); p != "fairshare rank 2 of 5 (alice: usage 100, share 15%)" {
		t.Errorf("position: %q", p)
	}
	// A group that used more is behind even when its member used little:
	// the path is compared from the top (compare_path). idle (grpB, no
	// shares) comes before carol.
	f2 := fsTree(t, true, 0, map[string]float64{"alice": 5000, "carol": 10, "bob": 900})
	if f2.Rank(job("bob")) != 0 || f2.Rank(job("carol")) != 2 {
		t.Errorf("grpA used 5010 for 60%%, grpB 900 for 40%%: bob first, got bob %d carol %d", f2.Rank(job("bob")), f2.Rank(job("carol")))
	}
	// Under Account_Name a job without an account counts as the unknown
	// group itself, ranked like any entity (not after everything).
	acct := NewFairshare(&model.FairshareConfig{Entity: model.FairshareAccount, Tree: []string{"projA 1 root 10"}},
		map[string]float64{"projA": 1e6}, []string{"", "projA"})
	if e := acct.EntityOf(&model.Job{}); e != "unknown" || acct.Rank(&model.Job{}) != 0 || acct.Rank(&model.Job{Account: "projA"}) != 1 {
		t.Errorf("job without an account: entity %q rank %d", e, acct.Rank(&model.Job{}))
	}
	// An empty unknown group takes no shares (default unknown_shares).
	plain := NewFairshare(&model.FairshareConfig{Tree: []string{"grpA 1 root 60", "grpB 2 root 40"}}, nil, nil)
	if e := plain.Entries(); e[1].Name != "grpA" || !near(e[1].Perc, 0.6) {
		t.Errorf("tree without unknown entities: %+v", e)
	}
	// Unknown users share unknown_shares at the top.
	f3 := fsTree(t, true, 100, nil, "dave", "erin")
	if got := f3.Value(job("dave"), VarFairSharePerc); !near(got, 0.25) {
		t.Errorf("unknown user with unknown_shares 100 of 200, shared by 2: perc %v, want 0.25", got)
	}
}

// TestFairshareJobOrder: fair_share orders entities after the formula and
// before job_sort_key and submission; the formula reads the variables.
func TestFairshareJobOrder(t *testing.T) {
	usage := map[string]float64{"alice": 100, "carol": 100, "bob": 1000}
	jobs := []*model.Job{
		{ID: "1.s", Seq: 1, User: "bob", ResourceList: map[string]string{"ncpus": "1"}},
		{ID: "2.s", Seq: 2, User: "alice", ResourceList: map[string]string{"ncpus": "8"}},
		{ID: "3.s", Seq: 3, User: "carol", ResourceList: map[string]string{"ncpus": "1"}},
		{ID: "4.s", Seq: 4, User: "bob", ResourceList: map[string]string{"ncpus": "4"}},
		{ID: "5.s", Seq: 5, User: "alice", ResourceList: map[string]string{"ncpus": "1"}},
	}
	ids := func(js []*model.Job) string {
		var out []string
		for _, x := range js {
			out = append(out, x.ID)
		}
		return strings.Join(out, " ")
	}
	formula := func(s string) *Formula {
		f, err := ParseFormula(s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	defs := model.BuiltinResources()
	cases := []struct {
		name string
		o    JobOrder
		want string
	}{
		{"off: submission", JobOrder{Fairshare: fsTree(t, false, 0, usage)}, "1.s 2.s 3.s 4.s 5.s"},
		{"fair_share", JobOrder{Fairshare: fsTree(t, true, 0, usage)}, "3.s 2.s 5.s 1.s 4.s"},
		{"fair_share then job_sort_key", JobOrder{Fairshare: fsTree(t, true, 0, usage), Defs: defs,
			SortKeys: []JobSortKey{{Name: "ncpus", High: true}}}, "3.s 2.s 5.s 4.s 1.s"},
		{"formula first", JobOrder{Fairshare: fsTree(t, true, 0, usage), Defs: defs, Formula: formula("ncpus")}, "2.s 4.s 3.s 5.s 1.s"},
		{"formula of fair_share_perc without fair_share", JobOrder{Fairshare: fsTree(t, false, 0, usage), Formula: formula("fair_share_perc")},
			"3.s 1.s 4.s 2.s 5.s"},
		{"job_sort_key fairshare_factor", JobOrder{Fairshare: fsTree(t, false, 0, usage),
			SortKeys: []JobSortKey{{Name: VarFairshareFactor, High: true}}}, "3.s 2.s 5.s 1.s 4.s"},
	}
	for _, tc := range cases {
		if got := ids(tc.o.SortJobs(jobs)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if _, err := ParseJobSortKeys([]string{"fair_share_perc HIGH"}, defs); err != nil {
		t.Errorf("fair_share_perc as job_sort_key: %v", err)
	}
}

// TestFairshareWithUsage: reusing a tree with other usage ranks as a tree
// built anew with that usage.
func TestFairshareWithUsage(t *testing.T) {
	ents := []string{"alice", "bob", "carol", "dave"}
	a := map[string]float64{"alice": 100, "bob": 5000, "carol": 7, "dave": 1}
	b := map[string]float64{"alice": 9000, "bob": 10, "carol": 7000, "dave": 300}
	reused := fsTree(t, true, 10, a, ents...).WithUsage(b)
	fresh := fsTree(t, true, 10, b, ents...)
	if got, want := fmt.Sprint(reused.Entries()), fmt.Sprint(fresh.Entries()); got != want {
		t.Fatalf("WithUsage:\n%s\nfresh:\n%s", got, want)
	}
}
