package scheduler

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// psetDefs adds the switch and rack resources placement sets group by.
var psetDefs = testDefs.With(
	model.ResourceDef{Name: "switch", Type: model.TypeString, Flags: "h"},
	model.ResourceDef{Name: "rack", Type: model.TypeStringArray, Flags: "h"},
)

func withAvail(kv ...string) vnodeOpt {
	return func(v *model.Vnode) {
		for i := 0; i+1 < len(kv); i += 2 {
			v.Available[kv[i]] = kv[i+1]
		}
	}
}

// hostsOf lists the vnodes of a decision in order, "n1,n2".
func hostsOf(p *Plan, id string) string {
	for _, d := range p.Runs {
		if d.JobID == id {
			var vs []string
			for _, ec := range d.Exec {
				for _, sh := range ec.Shares {
					vs = append(vs, sh.Vnode)
				}
			}
			return strings.Join(vs, ",")
		}
	}
	return ""
}

func TestPlacementSets(t *testing.T) {
	// Switch a: n1 n2 (2 cpus each); switch b: n3 n4 n5 (2 cpus each);
	// n6 has no switch. Node order puts n2 and n3 first, so without
	// placement sets a 2-host job takes n2+n3 across the switches.
	cluster := func(opts map[string][]vnodeOpt) []*model.Vnode {
		var vs []*model.Vnode
		for _, n := range []struct {
			name, sw string
			prio     int
		}{{"n1", "a", 1}, {"n2", "a", 9}, {"n3", "b", 8}, {"n4", "b", 1}, {"n5", "b", 1}, {"n6", "", 0}} {
			o := []vnodeOpt{prio(n.prio)}
			if n.sw != "" {
				o = append(o, withAvail("switch", n.sw))
			}
			vs = append(vs, vnode(n.name, "ncpus=2", append(o, opts[n.name]...)...))
		}
		return vs
	}
	for _, tc := range []struct {
		name      string
		cfg       PsetConfig
		queueKey  []string
		sel       string
		place     string
		busy      map[string][]vnodeOpt
		want      string // vnodes, "" for not run
		wantNever bool
	}{
		{name: "off: node order spans switches", sel: "2:ncpus=2", place: "scatter", want: "n2,n3"},
		{name: "server key: smallest set that fits", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "2:ncpus=2", place: "scatter", want: "n2,n1"},
		{name: "key set but not enabled", cfg: PsetConfig{Keys: []string{"switch"}},
			sel: "2:ncpus=2", place: "scatter", want: "n2,n3"},
		{name: "three hosts: only switch b", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "3:ncpus=2", place: "scatter", want: "n3,n4,n5"},
		{name: "smallest set busy: next set, never spanning", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "2:ncpus=2", place: "scatter", busy: map[string][]vnodeOpt{"n1": {running("x", 2)}}, want: "n3,n4"},
		{name: "fits a set but none now: waits", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "3:ncpus=2", place: "scatter", busy: map[string][]vnodeOpt{"n4": {running("x", 2)}}, want: ""},
		{name: "fits no set: spans", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "5:ncpus=2", place: "scatter", want: "n2,n3,n1,n4,n5"},
		{name: "fits no set, do_not_span_psets: never", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}, DoNotSpan: true},
			sel: "5:ncpus=2", place: "scatter", want: "", wantNever: true},
		{name: "unset vnodes are a set", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "1:ncpus=2", want: "n6"},
		{name: "only_explicit_psets: unset vnodes in no set", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}, OnlyExplicit: true},
			sel: "1:ncpus=2", want: "n2"},
		{name: "job's place=group without server psets", sel: "2:ncpus=2", place: "scatter:group=switch", want: "n2,n1"},
		{name: "queue key replaces the server's", cfg: PsetConfig{Enable: true, Keys: []string{"color"}}, queueKey: []string{"switch"},
			sel: "2:ncpus=2", place: "scatter", want: "n2,n1"},
		{name: "free placement kept in one set", cfg: PsetConfig{Enable: true, Keys: []string{"switch"}},
			sel: "4:ncpus=1", want: "n2,n2,n1,n1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := cluster(tc.busy)
			s := snapshot(vs, job(t, 1, tc.sel, tc.place))
			s.Defs = psetDefs
			s.Config.Psets = tc.cfg
			s.Queues = map[string]Queue{"workq": {Name: "workq", NodeGroupKey: tc.queueKey}}
			p := Schedule(s)
			if got := hostsOf(p, jobID(1)); got != tc.want {
				t.Errorf("placed on %q, want %q (%+v)", got, tc.want, comments(p)[jobID(1)])
			}
			cm := comments(p)[jobID(1)]
			if tc.wantNever != cm.NeverRun || tc.wantNever && cm.Comment != prefixNeverRun+msgCantSpan {
				t.Errorf("comment %+v, want never-run %v", cm, tc.wantNever)
			}
		})
	}
}

// TestPlacementSetsStringArray: a vnode listing several racks is in the
// set of each, and sets of several keys compete by size.
func TestPlacementSetsStringArray(t *testing.T) {
	vs := []*model.Vnode{
		vnode("n1", "ncpus=2", withAvail("rack", "r1,r2"), prio(9)),
		vnode("n2", "ncpus=2", withAvail("rack", "r1")),
		vnode("n3", "ncpus=2", withAvail("rack", "r2")),
		vnode("n4", "ncpus=2", withAvail("rack", "r2")),
	}
	s := snapshot(vs, job(t, 1, "2:ncpus=2", "scatter"))
	s.Defs = psetDefs
	s.Config.Psets = PsetConfig{Enable: true, Keys: []string{"rack"}}
	if got := hostsOf(Schedule(s), jobID(1)); got != "n1,n2" {
		t.Errorf("placed on %q, want n1,n2 (rack r1, the smaller)", got)
	}
}

// TestPlacementSetsAOE: among sets that fit, a job with an AOE goes to
// the set whose vnodes already run it, even a larger one; under
// avoid_provision the AOE ranking applies inside the set too.
func TestPlacementSetsAOE(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy string
		vnodes string // name:switch:current_aoe[:priority] ...
		want   string
	}{
		{"larger set already on the AOE", "", "a1:a:sles a2:a:sles b1:b:rhel b2:b:rhel b3:b:rhel", "b1,b2"},
		{"avoid_provision inside the set", AvoidProvision, "a1:a:sles:9 a2:a:rhel a3:a:sles b1:b:sles b2:b:sles b3:b:sles b4:b:sles", "a2,a1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var vs []*model.Vnode
			for _, spec := range strings.Fields(tc.vnodes) {
				f := strings.Split(spec, ":")
				o := []vnodeOpt{withAvail("switch", f[1]), func(v *model.Vnode) { v.CurrentAOE, v.ProvisionEnable = f[2], true }}
				if len(f) > 3 {
					o = append(o, prio(9))
				}
				vs = append(vs, vnode(f[0], "ncpus=2,aoe=rhel,sles", o...))
			}
			s := snapshot(vs, job(t, 1, "2:ncpus=2:aoe=rhel", "scatter"))
			s.Defs = psetDefs
			s.Provision = ProvisionInfo{Enabled: true, Policy: tc.policy}
			s.Config.Psets = PsetConfig{Enable: true, Keys: []string{"switch"}}
			if got := hostsOf(Schedule(s), jobID(1)); got != tc.want {
				t.Errorf("placed on %q, want %s", got, tc.want)
			}
		})
	}
}

// TestPlacementSetsTopJob: a top job's estimate is also kept inside one
// set.
func TestPlacementSetsTopJob(t *testing.T) {
	vs := []*model.Vnode{
		vnode("n1", "ncpus=2", withAvail("switch", "a")),
		vnode("n2", "ncpus=2", withAvail("switch", "a")),
		vnode("n3", "ncpus=2", withAvail("switch", "b")),
		vnode("n4", "ncpus=2", withAvail("switch", "b")),
	}
	m := byName(vs)
	// n1 frees at +100, n3 at +50, n2 and n4 at +1000: across switches the
	// job could start at +100 on n1+n3; inside one it waits for +1000.
	r := []*model.Job{
		runningOn(m, "r1", now, 100, 2, false, "n1"),
		runningOn(m, "r2", now, 1000, 2, false, "n2"),
		runningOn(m, "r3", now, 50, 2, false, "n3"),
		runningOn(m, "r4", now, 1000, 2, false, "n4"),
	}
	s := strict(snapshot(vs, job(t, 1, "2:ncpus=2", "scatter", walltime(100))), 1)
	s.Defs = psetDefs
	s.Running = r
	s.Config.Psets = PsetConfig{Enable: true, Keys: []string{"switch"}}
	e := estimates(Schedule(s))[jobID(1)]
	if e.Start != now+1000 {
		t.Errorf("estimated start +%d, want +1000 (inside one switch)", e.Start-now)
	}
}

// TestPlacementSetsManySets performs the attack of a user asking for
// place=group=host on a large cluster: one set per host. The cycle must
// stay linear in the vnodes (no per-set vnode tables, no scan of the
// whole cluster per set).
func TestPlacementSetsManySets(t *testing.T) {
	// Two vnodes per host with one cpu free each: every host's set has
	// the two cpus a job asks for in total, so each set is really tried
	// (and fails: a chunk is not split in free or pack placement).
	const n = 20000
	vs := make([]*model.Vnode, n)
	for i := range vs {
		vs[i] = vnode(fmt.Sprintf("n%05d", i), "ncpus=2", onHost(fmt.Sprintf("h%05d", i/2)), running("x", 1))
	}
	jobs := []*model.Job{
		job(t, 1, "1:ncpus=2", "free:group=host"),
		job(t, 2, "1:ncpus=2:color=red", "pack:group=host"),
		job(t, 3, "1:ncpus=2", "vscatter:group=host"),
	}
	s := snapshot(vs, jobs...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	p := Schedule(s)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if len(p.Runs) != 0 {
		t.Errorf("ran %d jobs on vnodes with 1 cpu free", len(p.Runs))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200<<20 {
		t.Errorf("a cycle allocated %d MB for one set per host", alloc>>20)
	}
	if elapsed > 2*time.Second {
		t.Errorf("a cycle took %s for one set per host", elapsed)
	}
}

// BenchmarkSchedulePsets_20kJobs2kVnodes is the greedy cycle of
// bench_test.go with every vnode in one of 40 switches and
// node_group_key=switch: every job is placed inside one switch.
func BenchmarkSchedulePsets_20kJobs2kVnodes(b *testing.B) {
	s := benchSnapshot(b, 2000, 20000)
	s.Defs = s.Defs.With(model.ResourceDef{Name: "switch", Type: model.TypeString, Flags: "h"})
	for i, v := range s.Vnodes {
		v.Available["switch"] = fmt.Sprintf("s%02d", i%40)
	}
	s.Config.Psets = PsetConfig{Enable: true, Keys: []string{"switch"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := Schedule(s)
		b.ReportMetric(float64(len(p.Runs)), "runs")
	}
}

// TestPlacementSetsReservation: a reservation is confirmed inside one set.
func TestPlacementSetsReservation(t *testing.T) {
	vs := []*model.Vnode{
		vnode("n1", "ncpus=2", withAvail("switch", "a"), prio(9)),
		vnode("n2", "ncpus=2", withAvail("switch", "b"), prio(8)),
		vnode("n3", "ncpus=2", withAvail("switch", "b")),
	}
	s := snapshot(vs)
	s.Now = now
	s.Defs = psetDefs
	s.Config.Psets = PsetConfig{Enable: true, Keys: []string{"switch"}}
	r := resv(t, 10, "2:ncpus=2", now+100, now+200, model.ResvUnconfirmed)
	r.Place = model.Place{Arrangement: model.PlaceScatter}
	s.Reservations = []*model.Reservation{r}
	d := decisions(Schedule(s))["R10.svr"]
	if got := execOf(model.RunDecision{Exec: d.Nodes}); !d.Confirm || got != "(n2:ncpus=2)+(n3:ncpus=2)" {
		t.Errorf("reservation %+v on %s, want n2+n3 (switch b)", d, got)
	}
}
