package schedglue

import (
	"fmt"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// resvSeen is what pbs_rstat -f shows of a reservation that these tests
// look at.
type resvSeen struct {
	State     string // reserve_state, short form
	ResvNodes string
	Comment   string
}

func (f *fixture) resvSeen(id string) resvSeen {
	f.t.Helper()
	s := f.State()
	r := s.Reservation(id)
	if r == nil {
		f.t.Fatalf("no reservation %s", id)
	}
	cfg := s.Config()
	return resvSeen{State: model.ResvStateShort(r.State), ResvNodes: r.ResvNodes(cfg.Defs), Comment: r.Comment}
}

// submitResv stores an advance reservation of sel from start to end.
func (f *fixture) submitResv(sel string, start, end, now int64) string {
	f.t.Helper()
	s, err := model.ParseSelect(sel, model.BuiltinResources())
	if err != nil {
		f.t.Fatal(err)
	}
	f.tokens++
	r := &model.Reservation{Name: "r", Owner: "alice@h", User: "alice", Token: fmt.Sprintf("resv%d", f.tokens),
		Start: start, End: end, Duration: end - start, Select: s, AuthorizedUsers: []string{"alice@h"}}
	id, ok := f.apply(&raftstore.SubmitResv{Resv: r, Now: now}).(string)
	if !ok {
		f.t.Fatal("reservation submission returned no id")
	}
	return id
}

// TestReservationConfirmation: a cycle confirms the reservations that fit
// on the hosts (resv_nodes set, state CO) and denies those that cannot
// (state DE until the tombstone goes, with the scheduler's reason), counting the jobs that will still run at
// the reservation's start and the reservations confirmed before it.
// Two hosts of 2 CPUs; reservations run from 5000 to 9000.
func TestReservationConfirmation(t *testing.T) {
	const now = 1000
	denied := "Reservation denied: PBS Failed to confirm resv: "
	confirmed := "Reservation confirmed at " + pbsTime(now)
	for _, tc := range []struct {
		name    string
		running []job    // started before the reservations are submitted
		resvs   []string // selects, submitted in order
		want    []resvSeen
	}{
		{name: "fits: confirmed on the first host",
			resvs: []string{"1:ncpus=2"},
			want:  []resvSeen{{State: "CO", ResvNodes: "(n1:ncpus=2)", Comment: confirmed}}},
		{name: "two hosts' worth",
			resvs: []string{"2:ncpus=2"},
			want:  []resvSeen{{State: "CO", ResvNodes: "(n1:ncpus=2)+(n2:ncpus=2)", Comment: confirmed}}},
		{name: "larger than the cluster: denied",
			resvs: []string{"3:ncpus=2"},
			want:  []resvSeen{{State: "DE", Comment: denied + "Reservation can never run: Insufficient amount of resource: ncpus (R: 6 A: 4 T: 4)"}}},
		{name: "the second of two overlapping takes the other host, the third is denied",
			resvs: []string{"1:ncpus=2", "1:ncpus=2", "1:ncpus=2"},
			want:  []resvSeen{{State: "CO", ResvNodes: "(n1:ncpus=2)", Comment: confirmed}, {State: "CO", ResvNodes: "(n2:ncpus=2)", Comment: confirmed}, {State: "DE", Comment: denied + "Insufficient resources during the reservation's period"}}},
		{name: "a job running past the start keeps its host",
			running: []job{{sel: "1:ncpus=2", res: map[string]string{"walltime": "10:00:00"}}},
			resvs:   []string{"1:ncpus=2"},
			want:    []resvSeen{{State: "CO", ResvNodes: "(n2:ncpus=2)", Comment: confirmed}}},
		{name: "a job ending before the start does not",
			running: []job{{sel: "1:ncpus=2", res: map[string]string{"walltime": "00:10:00"}}},
			resvs:   []string{"2:ncpus=2"},
			want:    []resvSeen{{State: "CO", ResvNodes: "(n1:ncpus=2)+(n2:ncpus=2)", Comment: confirmed}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, model.ServerConfig{})
			f.host("n1", "ncpus=2", "")
			f.host("n2", "ncpus=2", "")
			for i, j := range tc.running {
				f.submit(j, int64(100+i))
			}
			f.cycle(500)
			var ids []string
			for _, sel := range tc.resvs {
				ids = append(ids, f.submitResv(sel, 5000, 9000, 900))
			}
			f.cycle(now)
			for i, id := range ids {
				if got := f.resvSeen(id); got != tc.want[i] {
					t.Errorf("reservation %s: %+v, want %+v", id, got, tc.want[i])
				}
			}
		})
	}
}
