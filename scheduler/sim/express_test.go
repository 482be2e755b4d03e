package sim

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestExpressWithoutExpressJobsIsRun: with no express job the preemption
// machinery changes nothing: the same metrics as Run.
func TestExpressWithoutExpressJobsIsRun(t *testing.T) {
	tr, err := ReadFile(filepath.Join("testdata", "traces", "lublin_256.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Count: 300}
	want, err := Run(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := RunExpress(tr, opt, ExpressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Preemptions != 0 || !reflect.DeepEqual(got.Result, want) {
		t.Fatalf("express run without express jobs:\n got %+v\nwant %+v", got, want)
	}
}

// TestExpressPreempts: an express stream preempts, waits far less than
// the other jobs, and the run is deterministic.
func TestExpressPreempts(t *testing.T) {
	tr, err := ReadFile(filepath.Join("testdata", "traces", "lublin_256.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Count: 400}
	for _, order := range []string{"S", "R"} {
		res, err := RunExpress(tr, opt, ExpressOptions{Fraction: 0.1, Order: order})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExpressJobs == 0 || res.Preemptions == 0 {
			t.Fatalf("order %s: %d express jobs, %d preemptions", order, res.ExpressJobs, res.Preemptions)
		}
		if res.ExpressAvgWait >= res.NormalAvgWait {
			t.Errorf("order %s: express wait %.0f s not below normal %.0f s", order, res.ExpressAvgWait, res.NormalAvgWait)
		}
		if order == "S" && (res.Suspensions != res.Preemptions || res.LostWork != 0) {
			t.Errorf("suspend: %+v", res)
		}
		if order == "R" && (res.Requeues != res.Preemptions || res.LostWork == 0) {
			t.Errorf("requeue: %+v", res)
		}
		again, _ := RunExpress(tr, opt, ExpressOptions{Fraction: 0.1, Order: order})
		if !reflect.DeepEqual(res, again) {
			t.Errorf("order %s: not deterministic:\n%+v\n%+v", order, res, again)
		}
		t.Logf("order %s: %+v", order, res)
	}
}
