package sim

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/scheduler"
)

// Two one-cpu nodes (n00000 on aoe0, n00001 on aoe1) and one job of user 1
// (aoe1): aggressive_provision takes the first vnode in node order and
// reimages it (50 s), avoid_provision and lookahead_provision take the
// vnode already on aoe1.
const aoeSWF = `; MaxNodes: 2
; MaxProcs: 2
1   0 -1 100 1 -1 -1  1 100 -1 1 1 1 1 1 1 -1 -1
`

func TestAOEHandChecked(t *testing.T) {
	tr, err := Parse(strings.NewReader(aoeSWF))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		policy          string
		app             int64 // --app-time: aoe1 is an application AOE
		reimages        int
		wait, provNodeS int64
	}{
		{scheduler.AggressiveProvision, 0, 1, 50, 50},
		{scheduler.AggressiveProvision, 10, 1, 10, 10},
		{scheduler.AvoidProvision, 0, 0, 0, 0},
		{scheduler.LookaheadProvision, 0, 0, 0, 0},
	} {
		r, err := Run(tr, Options{Policy: PolicyEASY, AOE: AOEOptions{AOEs: 2, ReimageTime: 50, AppTime: tc.app, ProvisionPolicy: tc.policy}})
		if err != nil {
			t.Fatal(err)
		}
		a := r.AOEResult
		if a == nil || a.Reimages != tc.reimages || int64(r.AvgWait) != tc.wait || a.ProvisioningNodeSeconds != tc.provNodeS {
			t.Errorf("%s: %+v %+v", tc.policy, r, a)
		}
		// The job was estimated at submission: its start plus the
		// default 600 s estimate (nothing learned yet).
		if a.EstimatedJobs != 1 || (tc.reimages == 1) != (a.EstimateMAE == float64(600-tc.wait)) {
			t.Errorf("%s: estimate error %v over %d jobs", tc.policy, a.EstimateMAE, a.EstimatedJobs)
		}
	}
}

// TestAOEDeterministic: the same run twice gives the same figures, for
// each policy, on the first 150 jobs of the Lublin trace with 4 AOEs
// (jobs without users: AOE by job number).
func TestAOEDeterministic(t *testing.T) {
	tr, err := ReadFile(filepath.Join("testdata", "traces", "lublin_256.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{scheduler.AggressiveProvision, scheduler.AvoidProvision, scheduler.LookaheadProvision} {
		opt := Options{Count: 150, AOE: AOEOptions{AOEs: 4, ReimageTime: 300, ProvisionPolicy: pol}}
		a, err := Run(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(tr, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(*a.AOEResult, *b.AOEResult) {
			t.Fatalf("%s: two runs differ:\n%+v %+v\n%+v %+v", pol, a, *a.AOEResult, b, *b.AOEResult)
		}
		if a.Reimages == 0 || a.ProvisionedJobs == 0 || a.ProvisionedJobs == a.Jobs || a.ProvisionPolicy != pol {
			t.Errorf("%s: %+v", pol, *a.AOEResult)
		}
	}
}

// TestAOEOptionsChecked: bad provisioning options are refused, and books
// that do not model provisioning are not used with AOEs.
func TestAOEOptionsChecked(t *testing.T) {
	tr, err := Parse(strings.NewReader(aoeSWF))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []AOEOptions{
		{AOEs: 2, ReimageTime: 50, ProvisionPolicy: "sometimes"},
		{AOEs: 2, ReimageTime: 0},
		{AOEs: 2, ReimageTime: 50, AppTime: -1},
	} {
		if _, err := Run(tr, Options{AOE: o}); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	noProv := func(m Machine, cfg scheduler.Config) (Books, error) {
		b, err := newOwnBooks(m, cfg)
		return struct{ Books }{b}, err
	}
	if _, err := RunWith(tr, Options{AOE: AOEOptions{AOEs: 2, ReimageTime: 50}}, noProv); err == nil {
		t.Error("books without provisioning accepted AOEs")
	}
}
