package scheduler

import (
	"reflect"
	"testing"

	"github.com/strata-hpc/strata/model"
)

type schedCase struct {
	name   string
	vnodes []*model.Vnode
	jobs   func(t *testing.T) []*model.Job
	keys   []string
	// want maps job seq to exec text for jobs that run, or to a comment
	// for jobs that do not ("" means no comment emitted).
	run     map[int64]string
	comment map[int64]string
	never   map[int64]bool
}

func (tc schedCase) check(t *testing.T) *Plan {
	t.Helper()
	s := snapshot(tc.vnodes, tc.jobs(t)...)
	if len(tc.keys) > 0 {
		withKeys(t, s, tc.keys...)
	}
	p := Schedule(s)
	gotRuns, gotComments := runs(p), comments(p)
	for seq, want := range tc.run {
		if got, ok := gotRuns[jobID(seq)]; !ok || got != want {
			t.Errorf("job %d: run %q (ran=%v), want %q; comment %q", seq, got, ok, want, gotComments[jobID(seq)].Comment)
		}
	}
	for seq, want := range tc.comment {
		got, ok := gotComments[jobID(seq)]
		if want == "" {
			if ok {
				t.Errorf("job %d: unexpected comment %q", seq, got.Comment)
			}
			continue
		}
		if got.Comment != want {
			t.Errorf("job %d: comment %q, want %q (run %q)", seq, got.Comment, want, gotRuns[jobID(seq)])
		}
		if got.NeverRun != tc.never[seq] {
			t.Errorf("job %d: NeverRun %v, want %v", seq, got.NeverRun, tc.never[seq])
		}
	}
	for id := range gotRuns {
		if _, ok := gotComments[id]; ok {
			t.Errorf("job %s both ran and got a comment", id)
		}
	}
	return p
}

func jobs(js ...func(t *testing.T) *model.Job) func(t *testing.T) []*model.Job {
	return func(t *testing.T) []*model.Job {
		out := make([]*model.Job, len(js))
		for i, j := range js {
			out[i] = j(t)
		}
		return out
	}
}

func j(seq int64, sel, place string, opts ...jobOpt) func(t *testing.T) *model.Job {
	return func(t *testing.T) *model.Job { return job(t, seq, sel, place, opts...) }
}

func TestPlacement(t *testing.T) {
	four := func() []*model.Vnode { return []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4")} }
	// Two hosts with two 4-cpu vnodes each.
	twoByTwo := func() []*model.Vnode {
		return []*model.Vnode{
			vnode("h1a", "ncpus=4", onHost("h1")), vnode("h1b", "ncpus=4", onHost("h1")),
			vnode("h2a", "ncpus=4", onHost("h2")), vnode("h2b", "ncpus=4", onHost("h2")),
		}
	}
	cases := []schedCase{
		{name: "free first fit", vnodes: four(),
			jobs: jobs(j(1, "1:ncpus=2", "")),
			run:  map[int64]string{1: "(n1:ncpus=2)"}},
		{name: "free several chunks per vnode", vnodes: four(),
			jobs: jobs(j(1, "3:ncpus=2", "free")),
			run:  map[int64]string{1: "(n1:ncpus=2)+(n1:ncpus=2)+(n2:ncpus=2)"}},
		{name: "free jobs fill in node order", vnodes: four(),
			jobs: jobs(j(1, "1:ncpus=3", ""), j(2, "1:ncpus=2", ""), j(3, "1:ncpus=1", "")),
			run:  map[int64]string{1: "(n1:ncpus=3)", 2: "(n2:ncpus=2)", 3: "(n1:ncpus=1)"}},
		{name: "larger chunk first rescues first fit, output in select order",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=2")},
			jobs:   jobs(j(1, "1:ncpus=2+1:ncpus=4", "free")),
			run:    map[int64]string{1: "(n2:ncpus=2)+(n1:ncpus=4)"}},
		{name: "pack puts all chunks on one host",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=4")},
			jobs:   jobs(j(1, "2:ncpus=2", "pack")),
			run:    map[int64]string{1: "(n2:ncpus=2)+(n2:ncpus=2)"}},
		{name: "scatter one chunk per host", vnodes: four(),
			jobs: jobs(j(1, "2:ncpus=1", "scatter")),
			run:  map[int64]string{1: "(n1:ncpus=1)+(n2:ncpus=1)"}},
		{name: "vscatter one chunk per vnode of one host",
			vnodes: []*model.Vnode{vnode("a", "ncpus=4", onHost("h")), vnode("b", "ncpus=4", onHost("h"))},
			jobs:   jobs(j(1, "2:ncpus=1", "vscatter")),
			run:    map[int64]string{1: "(a:ncpus=1)+(b:ncpus=1)"}},
		{name: "scatter cannot use two vnodes of one host",
			vnodes:  []*model.Vnode{vnode("a", "ncpus=4", onHost("h")), vnode("b", "ncpus=4", onHost("h"))},
			jobs:    jobs(j(1, "2:ncpus=1", "scatter")),
			comment: map[int64]string{1: "Can Never Run: Not enough total nodes available"},
			never:   map[int64]bool{1: true}},
		{name: "pack splits a chunk across vnodes of one host only when needed", vnodes: twoByTwo(),
			jobs: jobs(j(1, "1:ncpus=6", "pack"), j(2, "1:ncpus=2", "pack")),
			run:  map[int64]string{1: "(h1a:ncpus=4+h1b:ncpus=2)", 2: "(h1b:ncpus=2)"}},
		{name: "scatter splits per host", vnodes: twoByTwo(),
			jobs: jobs(j(1, "2:ncpus=6", "scatter")),
			run:  map[int64]string{1: "(h1a:ncpus=4+h1b:ncpus=2)+(h2a:ncpus=4+h2b:ncpus=2)"}},
		{name: "free never splits a chunk", vnodes: twoByTwo(),
			jobs:    jobs(j(1, "1:ncpus=6", "free")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ncpus (R: 6 A: 4 T: 4)"},
			never:   map[int64]bool{1: true}},
		{name: "pack prefers a single vnode of the host",
			vnodes: []*model.Vnode{vnode("a", "ncpus=2", onHost("h")), vnode("b", "ncpus=4", onHost("h"))},
			jobs:   jobs(j(1, "1:ncpus=4", "pack")),
			run:    map[int64]string{1: "(b:ncpus=4)"}},
		{name: "excl avoids used vnodes and holds its vnode",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4", running("9.svr", 1)), vnode("n2", "ncpus=4")},
			jobs:   jobs(j(1, "1:ncpus=1", "excl"), j(2, "1:ncpus=1", ""), j(3, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)", 2: "(n1:ncpus=1)", 3: "(n1:ncpus=1)"}},
		{name: "excl job cannot share with a job placed earlier in the cycle", vnodes: four(),
			jobs: jobs(j(1, "1:ncpus=1", ""), j(2, "2:ncpus=1", "excl")),
			run:  map[int64]string{1: "(n1:ncpus=1)", 2: "(n2:ncpus=1)+(n2:ncpus=1)"}},
		{name: "excl in use",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=4", running("9.svr", 1))},
			jobs:    jobs(j(1, "1:ncpus=1", "excl")),
			comment: map[int64]string{1: "Not Running: Job is requesting an exclusive node and node is in use"}},
		{name: "exclusive vnode takes nothing else",
			vnodes: []*model.Vnode{
				func() *model.Vnode { v := vnode("n1", "ncpus=4"); v.ExclusiveJob = "9.svr"; return v }(),
				vnode("n2", "ncpus=4"),
			},
			jobs: jobs(j(1, "1:ncpus=1", "")),
			run:  map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "exclhost takes every vnode of a clean host",
			vnodes: []*model.Vnode{
				vnode("a", "ncpus=2", onHost("h1"), running("9.svr", 1)), vnode("b", "ncpus=2", onHost("h1")),
				vnode("c", "ncpus=2", onHost("h2")), vnode("d", "ncpus=2", onHost("h2")),
			},
			jobs: jobs(j(1, "1:ncpus=1", "exclhost"), j(2, "1:ncpus=1", "")),
			run:  map[int64]string{1: "(c:ncpus=1+d)", 2: "(a:ncpus=1)"}},
		{name: "job-busy vnode is judged by free resources",
			vnodes: []*model.Vnode{func() *model.Vnode {
				v := vnode("n1", "ncpus=4", running("9.svr", 2))
				v.State |= model.NodeJobBusy
				return v
			}()},
			jobs: jobs(j(1, "1:ncpus=2", "")),
			run:  map[int64]string{1: "(n1:ncpus=2)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
}

func TestExclusiveDecision(t *testing.T) {
	s := snapshot([]*model.Vnode{vnode("n1", "ncpus=4")}, job(t, 1, "1:ncpus=1", "excl"))
	p := Schedule(s)
	if len(p.Runs) != 1 || !p.Runs[0].Exclusive {
		t.Fatalf("runs %+v, want one exclusive run", p.Runs)
	}
	s = snapshot([]*model.Vnode{vnode("n1", "ncpus=4")}, job(t, 1, "1:ncpus=1", ""))
	if p := Schedule(s); len(p.Runs) != 1 || p.Runs[0].Exclusive {
		t.Fatalf("runs %+v, want one shared run", p.Runs)
	}
}

func TestMatching(t *testing.T) {
	vn := func() []*model.Vnode {
		return []*model.Vnode{
			vnode("n1", "ncpus=4,arch=linux"),
			vnode("n2", "ncpus=4,arch=ppc,bigmem=True,color=red,aoe=rhel8,sles15", onHost("n2.example.com"), onAOE("sles15")),
		}
	}
	cases := []schedCase{
		{name: "host", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:host=n2.example.com", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "short host name", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:host=n2", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "vnode", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:vnode=n2", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "arch", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:arch=ppc", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "boolean true", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:bigmem=true", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "missing boolean is false", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:bigmem=false", "")),
			run: map[int64]string{1: "(n1:ncpus=1)"}},
		{name: "custom string", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:color=red", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "aoe in list", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:aoe=sles15", "")),
			run: map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "mpiprocs is not a vnode property", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=2:mpiprocs=2", "")),
			run: map[int64]string{1: "(n1:ncpus=2)"}},
		{name: "unknown host can never run", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:host=nosuch", "")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: host (R: nosuch A: none T: none)"},
			never:   map[int64]bool{1: true}},
		{name: "unknown arch can never run", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:arch=sparc", "")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: arch (R: sparc A: none T: none)"},
			never:   map[int64]bool{1: true}},
		{name: "first failing constraint is named", vnodes: vn(), jobs: jobs(j(1, "1:ncpus=1:arch=linux:color=red", "")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: color (R: red A: none T: none)"},
			never:   map[int64]bool{1: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
}

func TestComments(t *testing.T) {
	cases := []schedCase{
		{name: "insufficient now",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=2", running("9.svr", 1))},
			jobs:    jobs(j(1, "1:ncpus=2", "")),
			comment: map[int64]string{1: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 1 T: 2)"}},
		{name: "insufficient size printed as size",
			vnodes: []*model.Vnode{func() *model.Vnode {
				v := vnode("n1", "ncpus=4,mem=16gb")
				v.Assigned["mem"] = 12 << 30
				return v
			}()},
			jobs:    jobs(j(1, "1:ncpus=1:mem=8gb", "")),
			comment: map[int64]string{1: "Not Running: Insufficient amount of resource: mem (R: 8gb A: 4gb T: 16gb)"}},
		{name: "never: more than the cluster has",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=8")},
			jobs:    jobs(j(1, "1:ncpus=64", "")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ncpus (R: 64 A: 16 T: 16)"},
			never:   map[int64]bool{1: true}},
		{name: "never: chunk larger than any vnode though the total fits",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=8", running("9.svr", 2))},
			jobs:    jobs(j(1, "1:ncpus=12", "")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ncpus (R: 12 A: 8 T: 8)"},
			never:   map[int64]bool{1: true}},
		{name: "never: pack larger than any host",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=8")},
			jobs:    jobs(j(1, "2:ncpus=6", "pack")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ncpus (R: 12 A: 8 T: 8)"},
			never:   map[int64]bool{1: true}},
		{name: "never: vscatter with more chunks than vnodes",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=8")},
			jobs:    jobs(j(1, "3:ncpus=1", "vscatter")),
			comment: map[int64]string{1: "Can Never Run: Not enough total nodes available"},
			never:   map[int64]bool{1: true}},
		{name: "never: unknown consumable on no vnode",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=8")},
			jobs:    jobs(j(1, "1:ncpus=1:ngpus=1", "")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ngpus (R: 1 A: 0 T: 0)"},
			never:   map[int64]bool{1: true}},
		{name: "not enough free nodes for scatter",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=4", running("9.svr", 4)), vnode("n2", "ncpus=4")},
			jobs:    jobs(j(1, "2:ncpus=1", "scatter")),
			comment: map[int64]string{1: "Not Running: Not enough free nodes available"}},
		{name: "ineligible state",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=4", withState(model.NodeOffline)), vnode("n2", "ncpus=4", withState(model.NodeDown))},
			jobs:    jobs(j(1, "1:ncpus=1", "")),
			comment: map[int64]string{1: "Not Running: Node is in an ineligible state: offline"}},
		{name: "requested vnode ineligible",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4", withState(model.NodeDown|model.NodeOffline))},
			jobs:    jobs(j(1, "1:ncpus=1:vnode=n2", "")),
			comment: map[int64]string{1: "Not Running: Node is in an ineligible state: down,offline"}},
		{name: "never: pack larger than a multi-vnode host",
			vnodes:  []*model.Vnode{vnode("a", "ncpus=4", onHost("h")), vnode("b", "ncpus=4", onHost("h")), vnode("c", "ncpus=4")},
			jobs:    jobs(j(1, "1:ncpus=10", "pack")),
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ncpus (R: 10 A: 8 T: 8)"},
			never:   map[int64]bool{1: true}},
		{name: "never: scatter with more chunks than hosts",
			vnodes:  []*model.Vnode{vnode("a", "ncpus=4", onHost("h")), vnode("b", "ncpus=4", onHost("h")), vnode("c", "ncpus=4")},
			jobs:    jobs(j(1, "3:ncpus=1", "scatter")),
			comment: map[int64]string{1: "Can Never Run: Not enough total nodes available"},
			never:   map[int64]bool{1: true}},
		{name: "exclhost needs a host with no jobs",
			vnodes:  []*model.Vnode{vnode("a", "ncpus=4", onHost("h"), running("9.svr", 1)), vnode("b", "ncpus=4", onHost("h"))},
			jobs:    jobs(j(1, "1:ncpus=1", "exclhost")),
			comment: map[int64]string{1: "Not Running: Job is requesting an exclusive node and node is in use"}},
		// The server-level count (OpenPBS's "A:") keeps a held vnode's
		// unused cpus: the job is told no vnode takes it, not that cpus
		// are missing.
		{name: "held vnodes take no job, as OpenPBS words it",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=4")},
			jobs:    jobs(j(1, "1:ncpus=1", "excl"), j(2, "1:ncpus=1", "")),
			run:     map[int64]string{1: "(n1:ncpus=1)"},
			comment: map[int64]string{2: "Not Running: Not enough free nodes available"}},
		{name: "free cpus only on an offline vnode: not enough free nodes",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=2", withState(model.NodeOffline)), vnode("n2", "ncpus=2", running("9.svr", 2))},
			jobs:    jobs(j(1, "1:ncpus=1", "")),
			comment: map[int64]string{1: "Not Running: Not enough free nodes available"}},
		{name: "every vnode full: insufficient, counted over the server",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=2", running("8.svr", 2)), vnode("n2", "ncpus=2", running("9.svr", 1))},
			jobs:    jobs(j(1, "1:ncpus=2", "")),
			comment: map[int64]string{1: "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 1 T: 4)"}},
		{name: "unchanged comment is not re-emitted",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=2", running("9.svr", 1))},
			jobs:    jobs(j(1, "1:ncpus=2", "", comment("Not Running: Insufficient amount of resource: ncpus (R: 2 A: 1 T: 2)"))),
			comment: map[int64]string{1: ""}},
		{name: "never run judged in this epoch is skipped",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=2")},
			jobs:    jobs(j(1, "1:ncpus=4", "", neverEpoch(7)), j(2, "1:ncpus=1", "", neverEpoch(7))),
			comment: map[int64]string{1: ""}},
		{name: "never run from an older epoch is judged again",
			vnodes:  []*model.Vnode{vnode("n1", "ncpus=2")},
			jobs:    jobs(j(1, "1:ncpus=4", "", neverEpoch(6), comment("Can Never Run: Insufficient amount of resource: ncpus (R: 4 A: 2 T: 2)")), j(2, "1:ncpus=1", "", neverEpoch(6))),
			run:     map[int64]string{2: "(n1:ncpus=1)"},
			comment: map[int64]string{1: "Can Never Run: Insufficient amount of resource: ncpus (R: 4 A: 2 T: 2)"},
			never:   map[int64]bool{1: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
	// A skipped job leaves no trace in the plan.
	s := snapshot([]*model.Vnode{vnode("n1", "ncpus=2")}, job(t, 1, "1:ncpus=4", "", neverEpoch(7)))
	if p := Schedule(s); !p.Empty() {
		t.Fatalf("plan %+v, want empty", p)
	}
}

func TestEquivalenceClasses(t *testing.T) {
	vn := []*model.Vnode{vnode("n1", "ncpus=2")}
	js := []*model.Job{
		job(t, 1, "1:ncpus=2", ""), job(t, 2, "1:ncpus=2", ""), job(t, 3, "1:ncpus=2", ""),
		job(t, 4, "1:ncpus=2", "", inQueue("other")),
	}
	s := snapshot(vn, js...)
	c := newCycle(s)
	for _, j := range js {
		c.consider(j, 0)
	}
	if len(c.classes) != 2 {
		t.Fatalf("%d classes, want 2 (queue is part of the class)", len(c.classes))
	}
	cl := c.classes[classKey(js[1])]
	if !cl.failed {
		t.Fatal("class not marked failed after its second job failed")
	}
	got := comments(c.plan)
	want := "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 0 T: 2)"
	for _, id := range []string{jobID(2), jobID(3), jobID(4)} {
		if got[id].Comment != want {
			t.Errorf("%s: comment %q, want %q", id, got[id].Comment, want)
		}
	}
	if len(c.plan.Runs) != 1 || c.plan.Runs[0].JobID != jobID(1) {
		t.Errorf("runs %+v, want job 1 only", c.plan.Runs)
	}
}

func TestNodeSortKeys(t *testing.T) {
	cases := []schedCase{
		{name: "default sort_priority HIGH",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4", prio(10))},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "sort_priority LOW",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4", prio(5)), vnode("n2", "ncpus=4", prio(-3))},
			keys:   []string{"sort_priority LOW"},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "ncpus LOW total",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=4")},
			keys:   []string{"ncpus LOW"},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "ncpus HIGH total",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=8")},
			keys:   []string{"ncpus high total"},
			jobs:   jobs(j(1, "1:ncpus=1", ""), j(2, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)", 2: "(n2:ncpus=1)"}},
		{name: "ncpus HIGH unused spreads jobs, ties in server order",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4", running("9.svr", 1)), vnode("n2", "ncpus=4")},
			keys:   []string{"ncpus HIGH unused"},
			jobs:   jobs(j(1, "1:ncpus=1", ""), j(2, "1:ncpus=1", ""), j(3, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)", 2: "(n1:ncpus=1)", 3: "(n2:ncpus=1)"}},
		{name: "ncpus HIGH unused re-sorts between chunks of one job",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4")},
			keys:   []string{"ncpus HIGH unused"},
			jobs:   jobs(j(1, "2:ncpus=1", "")),
			run:    map[int64]string{1: "(n1:ncpus=1)+(n2:ncpus=1)"}},
		{name: "ncpus LOW unused is best fit",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=8", running("9.svr", 6))},
			keys:   []string{"ncpus LOW unused"},
			jobs:   jobs(j(1, "1:ncpus=2", ""), j(2, "1:ncpus=2", "")),
			run:    map[int64]string{1: "(n2:ncpus=2)", 2: "(n1:ncpus=2)"}},
		{name: "ncpus HIGH assigned",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=8"), vnode("n2", "ncpus=8", running("9.svr", 1))},
			keys:   []string{"ncpus HIGH assigned"},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "later keys break ties",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=8", prio(1)), vnode("n2", "ncpus=4", prio(1)), vnode("n3", "ncpus=2")},
			keys:   []string{"sort_priority HIGH", "ncpus LOW"},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)"}},
		{name: "full tie keeps server order",
			vnodes: []*model.Vnode{vnode("n3", "ncpus=4"), vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4")},
			keys:   []string{"ncpus HIGH"},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n3:ncpus=1)"}},
		{name: "missing resource sorts as zero",
			vnodes: []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4,ngpus=2")},
			keys:   []string{"ngpus HIGH"},
			jobs:   jobs(j(1, "1:ncpus=1", "")),
			run:    map[int64]string{1: "(n2:ncpus=1)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.check(t) })
	}
}

func TestJobOrder(t *testing.T) {
	one := func() []*model.Vnode { return []*model.Vnode{vnode("n1", "ncpus=1")} }
	cases := []struct {
		name    string
		byQueue bool
		jobs    []func(t *testing.T) *model.Job
		want    int64
	}{
		{"submission order", false, []func(*testing.T) *model.Job{j(2, "1:ncpus=1", ""), j(1, "1:ncpus=1", "")}, 1},
		{"priority first", false, []func(*testing.T) *model.Job{j(1, "1:ncpus=1", ""), j(2, "1:ncpus=1", "", jobPrio(10))}, 2},
		{"queue priority ignored without by_queue", false, []func(*testing.T) *model.Job{j(1, "1:ncpus=1", ""), j(2, "1:ncpus=1", "", inQueue("hi"))}, 1},
		{"by_queue walks high queues first", true, []func(*testing.T) *model.Job{j(1, "1:ncpus=1", "", jobPrio(100)), j(2, "1:ncpus=1", "", inQueue("hi"))}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := snapshot(one(), jobs(tc.jobs...)(t)...)
			s.Queues["hi"] = Queue{Name: "hi", Priority: 100}
			s.Config.ByQueue = tc.byQueue
			p := Schedule(s)
			if len(p.Runs) != 1 || p.Runs[0].JobID != jobID(tc.want) {
				t.Fatalf("runs %+v, want job %d", p.Runs, tc.want)
			}
		})
	}
}

func TestRunsInDecisionOrder(t *testing.T) {
	s := snapshot([]*model.Vnode{vnode("n1", "ncpus=8")},
		job(t, 3, "1:ncpus=1", ""), job(t, 1, "1:ncpus=1", ""), job(t, 2, "1:ncpus=1", "", jobPrio(5)))
	p := Schedule(s)
	var got []string
	for _, d := range p.Runs {
		got = append(got, d.JobID)
	}
	want := []string{jobID(2), jobID(1), jobID(3)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
}

func TestExecDetails(t *testing.T) {
	s := snapshot([]*model.Vnode{vnode("n1", "ncpus=8,mem=16gb")},
		job(t, 1, "1:ncpus=4:mem=2gb:mpiprocs=4+1:ncpus=1", ""))
	p := Schedule(s)
	if len(p.Runs) != 1 {
		t.Fatalf("plan %+v", p)
	}
	ex := p.Runs[0].Exec
	if len(ex) != 2 || ex[0].MPIProcs != 4 || ex[1].MPIProcs != 1 {
		t.Fatalf("exec %+v: want mpiprocs 4 then default 1", ex)
	}
	if got := ex[0].Shares[0].Amounts; got["ncpus"] != 4 || got["mem"] != 2<<30 {
		t.Fatalf("amounts %v, want ncpus 4 and mem in bytes", got)
	}
}

// TestSnapshotUntouched checks the scheduler never writes the shared vnodes
// and jobs, nor reorders Snapshot.Queued.
func TestSnapshotUntouched(t *testing.T) {
	vn := []*model.Vnode{vnode("n1", "ncpus=4", running("9.svr", 1)), vnode("n2", "ncpus=4")}
	js := []*model.Job{job(t, 2, "2:ncpus=2", "excl"), job(t, 1, "1:ncpus=1", "")}
	var vcopies []*model.Vnode
	for _, v := range vn {
		vcopies = append(vcopies, v.Copy())
	}
	var jcopies []*model.Job
	for _, j := range js {
		jcopies = append(jcopies, j.Copy())
	}
	s := withKeys(t, snapshot(vn, js...), "ncpus HIGH unused")
	Schedule(s)
	for i := range vn {
		if !reflect.DeepEqual(vn[i], vcopies[i]) {
			t.Errorf("vnode %s changed: %+v", vn[i].Name, vn[i])
		}
	}
	for i := range js {
		if !reflect.DeepEqual(js[i], jcopies[i]) {
			t.Errorf("job %s changed", js[i].ID)
		}
		if s.Queued[i] != js[i] {
			t.Errorf("Queued reordered")
		}
	}
}
