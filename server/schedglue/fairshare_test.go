package schedglue

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// TestFairshareCycle: over the real FSM, the entity with less replicated
// usage per share starts first although submitted last; an entity with no
// shares is kept back with a comment under fairshare_enforce_no_shares and
// runs once enforcement is off; the formula's fairshare variables order
// jobs without fair_share.
func TestFairshareCycle(t *testing.T) {
	f := newFixture(t, model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), Scheduling: true, MaxJobSequenceID: 9999999})
	f.host("n1", "ncpus=1", "")
	f.configure(func(c *model.ServerConfig) {
		c.Sched.Fairshare = &model.FairshareConfig{Enabled: true,
			Tree: []string{"phys 1 root 50", "chem 2 root 50", "alice 3 phys 1", "bob 4 chem 1", "idle 5 chem 0"}}
	})
	f.apply(&raftstore.Fairshare{Op: raftstore.FairshareSet, Entity: "alice", Usage: 9000, Now: 30})
	f.apply(&raftstore.Fairshare{Op: raftstore.FairshareSet, Entity: "bob", Usage: 100, Now: 30})
	a := f.submit(job{user: "alice", sel: "1:ncpus=1"}, 40)
	i := f.submit(job{user: "idle", sel: "1:ncpus=1"}, 41)
	b := f.submit(job{user: "bob", sel: "1:ncpus=1"}, 42)
	f.cycle(100)
	if got := f.seen(b).State; got != "R/41" {
		t.Fatalf("bob (less usage per share, submitted last): %s", got)
	}
	if got := f.seen(a).State; got != "Q/10" {
		t.Fatalf("alice: %s", got)
	}
	if got := f.seen(i); got.State != "Q/10" || got.Comment != "Not Running: Fairshare entity idle has no shares" {
		t.Fatalf("idle (no shares): %+v", got)
	}

	// Without enforcement idle may run: it is in chem, whose usage per
	// share is far below phys's, so it goes before alice (compare_path
	// decides at the first level where the paths part).
	f.configure(func(c *model.ServerConfig) {
		off := false
		c.Sched.Fairshare.EnforceNoShares = &off
	})
	f.apply(&raftstore.JobEvents{Host: "n1", Now: 110, Events: []model.JobEvent{{JobID: b, Kind: model.JobEventEnded, Run: 1}}})
	f.cycle(120)
	if got := f.seen(i).State; got != "R/41" {
		t.Fatalf("idle without enforcement: %s", got)
	}
	if got := f.seen(a); got.State != "Q/10" || strings.Contains(got.Comment, "no shares") {
		t.Fatalf("alice: %+v", got)
	}
	f.apply(&raftstore.JobEvents{Host: "n1", Now: 125, Events: []model.JobEvent{{JobID: i, Kind: model.JobEventEnded, Run: 1}}})
	f.cycle(126)
	if got := f.seen(a).State; got != "R/41" {
		t.Fatalf("alice last: %s", got)
	}

	// fairshare_factor in a formula, fair_share off: bob's job first again.
	f.configure(func(c *model.ServerConfig) {
		c.Sched.Fairshare.Enabled = false
		c.Sched.JobSortFormula = "fairshare_factor"
	})
	f.apply(&raftstore.JobEvents{Host: "n1", Now: 130, Events: []model.JobEvent{{JobID: a, Kind: model.JobEventEnded, Run: 1}}})
	a2 := f.submit(job{user: "alice", sel: "1:ncpus=1"}, 131)
	b2 := f.submit(job{user: "bob", sel: "1:ncpus=1"}, 132)
	f.cycle(140)
	if f.seen(b2).State != "R/41" || f.seen(a2).State != "Q/10" {
		t.Fatalf("formula fairshare_factor: bob %s alice %s", f.seen(b2).State, f.seen(a2).State)
	}
}
