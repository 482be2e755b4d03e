package sim

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
)

// FuzzParseSWF checks trace parsing: every job kept has a processor count,
// a known submit time, and a run time within its request.
func FuzzParseSWF(f *testing.F) {
	for _, s := range []string{
		"; MaxNodes: 128\n; MaxProcs: 128\n1 0 10 3600 64 -1 -1 64 7200 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 100 -1 -1 -1 8 50 -1 1 1 1 -1 1 -1 -1 -1\n",
		"1 0 0 -1 4 -1 -1 4 100 -1 0 1 1 -1 1 -1 -1 -1\n", "1 2 3\n", "; MaxProcs: x\n", "1 0 0 1e300 4 -1 -1 4 NaN -1 0 1 1 -1 1 -1 -1 -1\n",
		"1 -1 0 5 4 -1 -1 -1 0 -1 0 1 1 -1 1 -1 -1 -1\n", "1 0 0 5 9.3e18 -1 -1 -1 0 -1 0 1 1 -1 1 -1 -1 -1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var tr *Trace
		var err error
		fuzzcheck.Bounded(t, len(text), func() { tr, err = Parse(strings.NewReader(text)) })
		if err != nil {
			return
		}
		for _, j := range tr.Jobs {
			if j.Procs <= 0 || j.Submit < 0 || j.Run < 0 || j.ReqTime < j.Run {
				t.Fatalf("%q: job %+v", text, j)
			}
		}
	})
}
