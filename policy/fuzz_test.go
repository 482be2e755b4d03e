package policy

// Fuzz targets for the scheduler policy parsers: job_sort_formula,
// node_sort_key and job_sort_key. `make fuzz` runs them; `go test` runs
// their seeds.

import (
	"math"
	"reflect"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
)

// FuzzParseFormula checks that a compiled formula evaluates to a finite
// number for any variable values (errors give 0, as in OpenPBS), and that
// its text compiles to the same variables and values again.
func FuzzParseFormula(f *testing.F) {
	for _, s := range []string{"2*ncpus + walltime/60", "queue_priority*1000 + job_priority", "-2**2", "min(ncpus, 4) - max(mem, 1e9) + abs(-x)",
		"eligible_time // 3600 % 7", "1/0", "(((1)))", "ncpus **", "min()", "foo(1)", "1e400", "2**1024", "a.b + 0.5e-3", "1 2", "x $ y", "((((((((((((((((1"} {
		f.Add(s, 1.5, -2.0)
	}
	f.Fuzz(func(t *testing.T, src string, a, b float64) {
		var fm *Formula
		var err error
		fuzzcheck.Bounded(t, len(src), func() { fm, err = ParseFormula(src) })
		if err != nil {
			return
		}
		vals := make([]float64, len(fm.Vars()))
		for i := range vals {
			vals[i] = a
			if i%2 == 1 {
				vals[i] = b
			}
		}
		var v float64
		fuzzcheck.Bounded(t, len(src), func() { v = fm.Eval(vals) })
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%q with %v evaluates to %v", src, vals, v)
		}
		again, err := ParseFormula(fm.String())
		if err != nil || !reflect.DeepEqual(again.Vars(), fm.Vars()) && len(fm.Vars()) > 0 {
			t.Fatalf("%q: String %q compiles to %v, %v", src, fm.String(), again, err)
		}
		if v2 := again.Eval(vals); v2 != v {
			t.Fatalf("%q with %v: %v, then %v", src, vals, v, v2)
		}
	})
}

func FuzzParseNodeSortKey(f *testing.F) {
	for _, s := range []string{"sort_priority HIGH", "ncpus HIGH unused", `"mem LOW assigned"`, "ncpus high total", "ncpus", "ncpus UP", "ncpus HIGH Unused", "a b c d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseNodeSortKey(s)
		if err != nil {
			return
		}
		back, err := ParseNodeSortKey(k.String())
		if err != nil || back != k {
			t.Fatalf("ParseNodeSortKey(%q) = %+v; String %q parses as %+v, %v", s, k, k.String(), back, err)
		}
	})
}

func FuzzParseJobSortKey(f *testing.F) {
	for _, s := range []string{"job_priority HIGH", "ncpus LOW", `"walltime HIGH" prime`, "sort_priority low", "ncpus", "mem HIGH all", `"x`, `"" HIGH`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseJobSortKey(s)
		if err != nil {
			return
		}
		back, err := ParseJobSortKey(k.String())
		if err != nil || back != k {
			t.Fatalf("ParseJobSortKey(%q) = %+v; String %q parses as %+v, %v", s, k, k.String(), back, err)
		}
	})
}
