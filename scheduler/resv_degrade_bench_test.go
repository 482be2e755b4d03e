package scheduler

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// degradedBenchSnapshot is the strict_ordering snapshot of 10,000 queued
// jobs on 2,000 vnodes with one confirmed reservation of 8 x 16 cpus an
// hour ahead, two of whose vnodes are down.
func degradedBenchSnapshot(tb testing.TB) *Snapshot {
	s := strictSnapshot(tb, 2000, 10000, 10)
	sel, err := model.ParseSelect("8:ncpus=16", testDefs)
	if err != nil {
		tb.Fatal(err)
	}
	r := &model.Reservation{ID: "R1.svr", Queue: "R1", Select: sel, Start: s.Now + 3600, End: s.Now + 7200,
		Duration: 3600, State: model.ResvConfirmed, Substate: model.ResvConfirmed}
	var picked []*model.Vnode
	for _, v := range s.Vnodes {
		if v.State == 0 && len(v.Jobs) == 0 && v.Host == v.Name && len(picked) < 8 {
			picked = append(picked, v)
		}
	}
	for _, v := range picked {
		r.Nodes = append(r.Nodes, model.ExecChunk{Shares: []model.VnodeShare{{Vnode: v.Name, Host: v.Host, Amounts: map[string]float64{"ncpus": 16}}}})
	}
	picked[0].State, picked[5].State = model.NodeDown, model.NodeDown
	r.State, r.Substate = model.ResvDegraded, model.ResvDegraded
	s.Reservations = []*model.Reservation{r}
	return s
}

// BenchmarkResvReconfirm10kJobs2kVnodes is the reservation pass of the
// cycle that reconfirms a degraded reservation (two of its eight vnodes
// down) with 10,000 queued jobs on 2,000 vnodes: the cycle's state, the
// calendar of the running jobs and the search for replacements.
// BenchmarkResvReconfirmCycle10kJobs2kVnodes is that whole cycle.
func BenchmarkResvReconfirm10kJobs2kVnodes(b *testing.B) {
	s := degradedBenchSnapshot(b)
	c := newCycle(s)
	c.reservations()
	if len(c.plan.Resvs) != 1 || !c.plan.Resvs[0].Confirm {
		b.Fatalf("the degraded reservation was not reconfirmed: %+v", c.plan.Resvs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c := newCycle(s)
		c.reservations()
	}
}

func BenchmarkResvReconfirmCycle10kJobs2kVnodes(b *testing.B) {
	s := degradedBenchSnapshot(b)
	p := Schedule(s)
	if len(p.Resvs) != 1 || !p.Resvs[0].Confirm {
		b.Fatalf("the degraded reservation was not reconfirmed: %+v", p.Resvs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Schedule(s)
	}
}
