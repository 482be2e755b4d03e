// Package benchmix is the job mix of the scheduler's benchmarks, shared by
// the scheduler's own (a Snapshot built directly) and the whole-cycle
// benchmarks of server/schedglue (jobs submitted through a real FSM), so
// that their figures describe the same queue.
package benchmix

// Kind is one kind of job: its share of the queue in percent, its select
// and place. A pinned kind's select names a host: format it with the
// host's name (fmt.Sprintf(k.Select, host)).
type Kind struct {
	Pct    int
	Select string
	Place  string
	Pinned bool
}

// Mix is mostly 1-cpu jobs, some multi-chunk, scatter, pack and exclusive
// jobs, a few pinned to a host and a few (64 cpus in one chunk on 32-cpu
// vnodes) that can never run.
func Mix() []Kind {
	return []Kind{
		{Pct: 40, Select: "1:ncpus=1:mem=2gb"},
		{Pct: 15, Select: "1:ncpus=1:mem=4gb"},
		{Pct: 15, Select: "1:ncpus=4:mem=8gb"},
		{Pct: 8, Select: "4:ncpus=8:mem=16gb", Place: "free"},
		{Pct: 5, Select: "2:ncpus=16:mpiprocs=16", Place: "scatter"},
		{Pct: 5, Select: "1:ncpus=32", Place: "excl"},
		{Pct: 3, Select: "2:ncpus=32", Place: "scatter:excl"},
		{Pct: 3, Select: "4:ncpus=4", Place: "pack"},
		{Pct: 4, Select: "1:ncpus=2:host=%s", Pinned: true},
		{Pct: 2, Select: "1:ncpus=64"},
	}
}

// Pick returns the kind that r, in [0, 100), falls on.
func Pick(mix []Kind, r int) Kind {
	for _, k := range mix {
		if r < k.Pct {
			return k
		}
		r -= k.Pct
	}
	return mix[len(mix)-1]
}
