package sim

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A 4-processor machine and five jobs, checked by hand.
//
//	job 1: t=0,  4 procs, run 100, req 100  -> starts 0
//	job 2: t=10, 4 procs, run 50,  req 100  -> blocked; top job at 100
//	job 3: t=20, 1 proc,  run 500, req 500  -> would delay job 2: waits
//	job 4: t=30, 2 procs, run 400, req 300  -> run capped at 300
//	job 5: t=40, 1 proc,  run -1            -> dropped (cancelled)
const handSWF = `; MaxNodes: 4
; MaxProcs: 4
1   0 -1 100 4 -1 -1  4 100 -1 1 1 1 1 1 1 -1 -1
2  10 -1  50 4 -1 -1  4 100 -1 1 1 1 1 1 1 -1 -1
3  20 -1 500 1 -1 -1 -1 500 -1 1 1 1 1 1 1 -1 -1
4  30 -1 400 2 -1 -1  2 300 -1 1 1 1 1 1 1 -1 -1
5  40 -1  -1 1 -1 -1  1  10 -1 5 1 1 1 1 1 -1 -1
`

func TestParse(t *testing.T) {
	tr, err := Parse(strings.NewReader(handSWF))
	if err != nil {
		t.Fatal(err)
	}
	if tr.MaxNodes != 4 || tr.MaxProcs != 4 || len(tr.Jobs) != 4 || tr.Dropped["run time unknown (cancelled before start)"] != 1 {
		t.Fatalf("parsed %+v", tr)
	}
	if j := tr.Jobs[2]; j.Procs != 1 {
		t.Errorf("req_procs -1 should fall back to alloc_procs: %+v", j)
	}
	if j := tr.Jobs[3]; j.Run != 300 || !j.Capped {
		t.Errorf("run over the request should be capped: %+v", j)
	}
}

func TestHandChecked(t *testing.T) {
	tr, err := Parse(strings.NewReader(handSWF))
	if err != nil {
		t.Fatal(err)
	}
	// EASY: job 2 is the top job at 100 (uses 4 procs until 150); job 3
	// (1 proc, 500 s) would delay it and waits until 150; job 4 (2 procs,
	// 300 s) too. At 150 both start (3 procs), ends 650 and 450.
	//   waits: 0, 90, 130, 120 -> 85
	//   bsld: 1, (90+50)/50=2.8, (130+500)/500=1.26, (120+300)/300=1.4 -> 6.46/4
	//   makespan 650; work 400+200+500+600 = 1700 over 4*650
	for _, pol := range []string{PolicyEASY, PolicyFCFS, PolicyConservative, PolicyStrata} {
		r, err := Run(tr, Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		want := Result{Policy: pol, Estimates: "user", Jobs: 4, Nodes: 4, PPN: 1, Procs: 4,
			AvgWait: 85, AvgBSLD: 6.46 / 4, Util: 1700.0 / (4 * 650), Makespan: 650, Cycles: r.Cycles, Capped: 1}
		if !close(r, want) {
			t.Errorf("%s: got %+v, want %+v", pol, r, want)
		}
	}
}

func close(a, b Result) bool {
	eq := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	return eq(a.AvgWait, b.AvgWait) && eq(a.AvgBSLD, b.AvgBSLD) && eq(a.Util, b.Util) &&
		a.Makespan == b.Makespan && a.Jobs == b.Jobs && a.Capped == b.Capped && a.Procs == b.Procs
}

func TestBackfillHelps(t *testing.T) {
	// job 1 holds 3 of 4 procs until 100; job 2 needs 4; job 3 (1 proc, 50 s)
	// backfills under EASY but waits under FCFS.
	swf := `; MaxNodes: 4
1  0 -1 100 3 -1 -1 3 100 -1 1 1 1 1 1 1 -1 -1
2  1 -1 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1
3  2 -1  50 1 -1 -1 1  50 -1 1 1 1 1 1 1 -1 -1
`
	tr, err := Parse(strings.NewReader(swf))
	if err != nil {
		t.Fatal(err)
	}
	fcfs, _ := Run(tr, Options{Policy: PolicyFCFS})
	easy, _ := Run(tr, Options{Policy: PolicyEASY})
	// FCFS: waits 0, 99, 198 -> 99; EASY: 0, 99, 0 -> 33.
	if fcfs.AvgWait != 99 || easy.AvgWait != 33 {
		t.Fatalf("fcfs wait %v (want 99), easy wait %v (want 33)", fcfs.AvgWait, easy.AvgWait)
	}
}

func TestDeterministic(t *testing.T) {
	path := filepath.Join("testdata", "traces", "lublin_256.swf.gz")
	tr, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Policy: PolicyEASY, Start: 1000, Count: 400}
	a, err := Run(tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(tr, opt)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs differ:\n%+v\n%+v", a, b)
	}
	if a.Jobs != 400 {
		t.Fatalf("window: %d jobs", a.Jobs)
	}
}
