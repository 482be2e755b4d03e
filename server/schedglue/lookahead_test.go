package schedglue

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestLookaheadProvisionServer: the server's cycle (state machine, Input,
// Schedule, ApplyPlan) honours provision_policy = lookahead_provision. n1
// runs os2 and n2 os1; job 1 (os2, 100 s) runs on n1 at 1000. Job 2 (os2)
// comes at 1010: the vnode on os2 is free in 90 s while a reimage of n2 is
// expected to take 600 s (nothing learned yet), so under lookahead it
// waits, says why and is planned on n1 at 1100; aggressive_provision
// reimages n2 at once.
func TestLookaheadProvisionServer(t *testing.T) {
	hook := map[string]model.Hook{"prov": {Name: "prov", Events: []string{"provision"}, Enabled: true, Script: "exit 0"}}
	for _, tc := range []struct {
		policy string
		want   seen
	}{
		{"lookahead_provision", seen{State: "Q/10",
			Comment:  "Not Running: Waiting for vnodes on AOE os2 (expected in 90 s, a reimage costs 600 s)",
			EstStart: 1100}},
		{"aggressive_provision", seen{State: "R/71", ExecVnode: "(n2:aoe=os2:ncpus=1)",
			Comment: ran(1010, "(n2:aoe=os2:ncpus=1)")}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			f := newFixture(t, model.ServerConfig{Hooks: hook,
				Sched: model.SchedConfig{ProvisionPolicy: tc.policy, StrictOrdering: true, BackfillDepth: 1}})
			f.host("n1", "ncpus=1,aoe=os1+os2", "os2")
			f.host("n2", "ncpus=1,aoe=os1+os2", "os1")
			first := f.submit(job{sel: "1:ncpus=1:aoe=os2", res: map[string]string{"walltime": "100"}}, 900)
			f.cycle(1000)
			if got := f.seen(first); got.State != "R/41" || got.ExecVnode != "(n1:ncpus=1)" {
				t.Fatalf("first job: %+v", got)
			}
			second := f.submit(job{sel: "1:ncpus=1:aoe=os2", res: map[string]string{"walltime": "100"}}, 1005)
			f.cycle(1010)
			if got := f.seen(second); got != tc.want {
				t.Errorf("second job: %+v, want %+v", got, tc.want)
			}
		})
	}
}
