package model

import "testing"

func TestVnodeDegradesAndDegradedStates(t *testing.T) {
	cases := []struct {
		s    NodeState
		want bool
	}{
		{0, false},
		{NodeJobBusy | NodeResvExclusive, false},
		{NodeDown, true},
		{NodeOffline | NodeJobBusy, true},
		{NodeStale, true},
		{NodeMaintenance, true},
		{NodeSleep, true},
		{NodeDown | NodeProvisioning, false}, // its agent restarts for an OS image
		{NodeStateUnknown | NodeWaitProvisioning, false},
	}
	for _, tc := range cases {
		if got := VnodeDegrades(tc.s); got != tc.want {
			t.Errorf("VnodeDegrades(%s) = %v", tc.s, got)
		}
	}
	r := &Reservation{ID: "R1.s", State: ResvRunning, Substate: ResvInConflict}
	if !r.Degraded() || r.Waiting() {
		t.Errorf("running IC: degraded %v waiting %v", r.Degraded(), r.Waiting())
	}
	r = &Reservation{ID: "M2.s", State: ResvDegraded}
	if !r.Degraded() || !r.Waiting() || !r.Maintenance() || ResvStateShort(r.State) != "DG" {
		t.Errorf("DG: %+v", r)
	}
	r.Gone = 1
	if r.Degraded() || r.Waiting() {
		t.Errorf("a tombstone counts as degraded or waiting")
	}
	orig := &Reservation{ResvExtra: ResvExtra{BaseNodes: []ExecChunk{{MPIProcs: 1}}, Hosts: []string{"h"}, Unavailable: []string{"v"}}}
	c := orig.Copy()
	c.BaseNodes[0].MPIProcs, c.Hosts[0], c.Unavailable[0] = 2, "x", "w"
	if orig.BaseNodes[0].MPIProcs != 1 || orig.Hosts[0] != "h" || orig.Unavailable[0] != "v" {
		t.Errorf("Copy shares the degradation fields with the original: %+v", orig.ResvExtra)
	}
}
