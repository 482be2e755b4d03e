package benchcmd

import (
	"strings"
	"testing"
)

func TestResvSectionReadsTheBenchmarks(t *testing.T) {
	out := "goos: linux\nBenchmarkResvReconfirm10kJobs2kVnodes-2        	       5	   2431321 ns/op	 2005568 B/op	    5127 allocs/op\n" +
		"BenchmarkResvReconfirmCycle10kJobs2kVnodes-2   	       5	 198175623 ns/op\n"
	s := resvSection(out)
	if !strings.Contains(s, "| reservation pass that finds the replacements | 2.43ms |") || !strings.Contains(s, "| the whole cycle that reconfirms it | 198.18ms |") {
		t.Errorf("section:\n%s", s)
	}
	if resvSection("nothing") != "" {
		t.Errorf("a section without the benchmarks")
	}
}
