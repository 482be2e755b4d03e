package policy

import (
	"strings"
	"testing"
)

func TestFormula(t *testing.T) {
	vars := map[string]float64{"ncpus": 4, "walltime": 3600, "queue_priority": 10, "eligible_time": 120, "job_priority": -5}
	cases := []struct {
		src  string
		want float64
	}{
		{"1", 1},
		{"ncpus", 4},
		{"ncpus * walltime", 14400},
		{"2 + 3 * 4", 14},
		{"(2 + 3) * 4", 20},
		{"-2 ** 2", -4},
		{"2 ** 3 ** 2", 512},
		{"7 // 2", 3},
		{"-7 % 3", 2},
		{"ncpus / 0", 0}, // evaluation error: 0, as OpenPBS
		{"10 - job_priority", 15},
		{"queue_priority*1000 + eligible_time/60", 10002},
		{"min(ncpus, 2) + max(1, 2, 3) + abs(job_priority)", 10},
		{"unknown_res + 1", 1}, // unset variables are 0
		{"1.5e2", 150},
		{"mem.gb", 0},
	}
	for _, tc := range cases {
		f, err := ParseFormula(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		vals := make([]float64, len(f.Vars()))
		for i, name := range f.Vars() {
			vals[i] = vars[name]
		}
		if got := f.Eval(vals); got != tc.want {
			t.Errorf("%q = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestFormulaErrors(t *testing.T) {
	for _, src := range []string{"", "1 +", "(1", "1 )", "ncpus $ 2", "import os", "foo(1)", "abs(1, 2)", "1..2"} {
		if _, err := ParseFormula(src); err == nil || !strings.Contains(err.Error(), "job_sort_formula") {
			t.Errorf("%q: error %v", src, err)
		}
	}
}
