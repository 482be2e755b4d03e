package sim

import (
	"path/filepath"
	"testing"
)

// BenchmarkSimulateLublin measures simulation speed on the 10,000-job
// Lublin trace under EASY (jobs/s is reported).
func BenchmarkSimulateLublin(b *testing.B) {
	tr, err := ReadFile(filepath.Join("testdata", "traces", "lublin_256.swf.gz"))
	if err != nil {
		b.Fatal(err)
	}
	var r Result
	for b.Loop() {
		r, _ = Run(tr, Options{Policy: PolicyEASY})
	}
	b.ReportMetric(float64(r.Jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
