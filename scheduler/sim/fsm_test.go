package sim_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/scheduler/sim"
	"github.com/strata-hpc/strata/server/schedglue"
)

// One event loop (sim.RunWith) drives either books: the simulator's own
// (sim.Run, the default: no state store indexes) or the server's state
// machine (schedglue.SimBooks: SubmitJob entries, the leader's Input and
// ApplyPlan command, job ends as the agent's "ended" events, all through
// the FSM's apply). This test holds them equal on every policy.
func TestSameOutcomeAsTheStateMachine(t *testing.T) {
	type trace struct {
		name string
		tr   *sim.Trace
		opt  sim.Options
	}
	var traces []trace
	for name, swf := range map[string]string{"hand": sim.HandSWF, "backfill": sim.BackfillSWF} {
		tr, err := sim.Parse(strings.NewReader(swf))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, trace{name, tr, sim.Options{}}, trace{name + " exact", tr, sim.Options{Exact: true}})
	}
	tr, err := sim.ReadFile(filepath.Join("testdata", "traces", "lublin_256.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	traces = append(traces, trace{"lublin 300 jobs", tr, sim.Options{Start: 1000, Count: 300}})
	traces = append(traces, trace{"lublin 300 jobs on 64 procs", tr, sim.Options{Start: 3000, Count: 300, Procs: 64}})
	for _, tc := range traces {
		for _, pol := range []string{sim.PolicyFCFS, sim.PolicyEASY, sim.PolicyConservative, sim.PolicyStrata} {
			opt := tc.opt
			opt.Policy = pol
			want, err := sim.Run(tc.tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := sim.RunWith(tc.tr, opt, schedglue.SimBooks)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, pol, err)
			}
			if got != want {
				t.Errorf("%s %s:\nsimulator     %+v\nstate machine %+v", tc.name, pol, want, got)
			}
		}
	}
}
