package sim

import (
	"os"
	"testing"
)

// BenchmarkSimulateLublin measures simulation speed on the 10,000-job
// Lublin trace under EASY (jobs/s is reported).
func BenchmarkSimulateLublin(b *testing.B) {
	path := "/work/shared/traces/lublin_256.swf"
	if _, err := os.Stat(path); err != nil {
		b.Skip("trace not available")
	}
	tr, err := ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var r Result
	for b.Loop() {
		r, _ = Run(tr, Options{Policy: PolicyEASY})
	}
	b.ReportMetric(float64(r.Jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}
