package benchcmd

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// resvSection is the report's section on reconfirming a degraded
// reservation (docs/reservations.md), read from the Go benchmarks of the
// scheduler (make bench runs them into the -gobench file): the
// reservation pass that finds the replacements, and the whole cycle it is
// part of, at 10,000 queued jobs on 2,000 vnodes. Empty when the
// benchmarks did not run.
func resvSection(gobench string) string {
	pass, okPass := benchNsOp(gobench, "BenchmarkResvReconfirm10kJobs2kVnodes")
	cycle, okCycle := benchNsOp(gobench, "BenchmarkResvReconfirmCycle10kJobs2kVnodes")
	if !okPass && !okCycle {
		return ""
	}
	row := func(what string, ns float64, ok bool, how string) string {
		v := "not measured"
		if ok {
			v = time.Duration(ns).Round(10 * time.Microsecond).String()
		}
		return fmt.Sprintf("| %s | %s | %s |\n", what, v, how)
	}
	return `
## Reconfirming a degraded reservation

A confirmed reservation of 8 chunks of 16 cpus an hour ahead loses two of
its vnodes (down); the next cycle keeps the six others and places the two
lost chunks again over the reservation's period, against the calendar of
the running jobs (strict_ordering, backfill_depth 10, 10,000 queued jobs on
2,000 vnodes, the mix of the cycle benchmarks). OpenPBS waits
reserve_retry_time (600 s by default) before it tries; Strata tries in the
first cycle after the degradation, so the time a user waits is one cycle.

| figure | time | benchmark (scheduler) |
|---|---|---|
` + row("reservation pass that finds the replacements", pass, okPass, "BenchmarkResvReconfirm10kJobs2kVnodes: cycle state, calendar, search") +
		row("the whole cycle that reconfirms it", cycle, okCycle, "BenchmarkResvReconfirmCycle10kJobs2kVnodes: the above plus the job pass") + `
The reconfirmation itself is a small part of the cycle: two placement
attempts over one window, like one top-job estimate; the rest is the job
pass over 10,000 queued jobs.
`
}

// benchNsOp finds the ns/op of a benchmark in go test -bench output.
func benchNsOp(out, name string) (float64, bool) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], name+"-") && f[0] != name {
			continue
		}
		for i := 2; i+1 < len(f); i++ {
			if f[i+1] == "ns/op" {
				if v, err := strconv.ParseFloat(f[i], 64); err == nil {
					return v, true
				}
			}
		}
	}
	return 0, false
}
