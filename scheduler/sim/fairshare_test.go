package sim

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// floodTrace: user 1 (group 1) submits 60 jobs of 4 procs x 1000 s at
// once on an 8-proc machine; user 2 (group 2) submits 10 such jobs a
// little later. In submission order user 2 waits behind the flood.
func floodTrace(t *testing.T) *Trace {
	var b strings.Builder
	b.WriteString("; MaxNodes: 8\n; MaxProcs: 8\n")
	id := 1
	line := func(submit, user int) {
		fmt.Fprintf(&b, "%d %d 0 1000 4 -1 -1 4 1000 -1 1 %d %d -1 -1 -1 -1 -1\n", id, submit, user, user)
		id++
	}
	for i := 0; i < 60; i++ {
		line(0, 1)
	}
	for i := 0; i < 10; i++ {
		line(3000, 2)
	}
	tr, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func groupWait(t *testing.T, r Result, name string) float64 {
	t.Helper()
	for _, g := range r.Fairness.Groups {
		if g.Name == name {
			return g.AvgWait
		}
	}
	t.Fatalf("no group %s in %+v", name, r.Fairness.Groups)
	return 0
}

// TestSimFairshare: with fair_share the light group's jobs overtake the
// flood once the heavy user has used more than its share; without, they
// wait behind it. The report is per group and per user, and a run is
// deterministic.
func TestSimFairshare(t *testing.T) {
	tr := floodTrace(t)
	off, err := Run(tr, Options{PerGroup: true})
	if err != nil {
		t.Fatal(err)
	}
	on, err := Run(tr, Options{Fairshare: &FairshareOptions{}})
	if err != nil {
		t.Fatal(err)
	}
	if off.Fairshare || !on.Fairshare || off.Fairness == nil || on.Fairness == nil {
		t.Fatalf("fairshare flags: off %v on %v", off.Fairshare, on.Fairshare)
	}
	wOff, wOn := groupWait(t, off, "g2"), groupWait(t, on, "g2")
	if !(wOn < wOff/2) {
		t.Fatalf("light group's wait: %v with fairshare, %v without; want far less with", wOn, wOff)
	}
	if len(on.Fairness.Users) != 2 || on.Fairness.Users[0].Name != "u1" {
		t.Fatalf("users: %+v", on.Fairness.Users)
	}
	again, _ := Run(tr, Options{Fairshare: &FairshareOptions{}})
	if !reflect.DeepEqual(on, again) {
		t.Fatalf("two runs differ")
	}
	// An explicit tree that gives group 1 everything: the flood keeps
	// its place.
	tree := []string{"g1 1 root 100", "g2 2 root 0", "u1 3 g1 1", "u2 4 g2 1"}
	starved, err := Run(tr, Options{Fairshare: &FairshareOptions{Tree: tree}})
	if err != nil {
		t.Fatal(err)
	}
	if w := groupWait(t, starved, "g2"); w < wOff {
		t.Fatalf("a group without shares waited %v, less than in submission order (%v)", w, wOff)
	}
	if _, err := Run(tr, Options{Fairshare: &FairshareOptions{Tree: []string{"u1 1 nowhere 1"}}}); err == nil {
		t.Fatalf("a broken tree was accepted")
	}
}
