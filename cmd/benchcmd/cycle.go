package benchcmd

// cycleSection is the report's section on one scheduling cycle at cluster
// size: the medians table tools/benchplot made from BenchmarkCycle, the
// plot next to the report, and how to read them.
func cycleSection(table string) string {
	return `
## Scheduling cycle at cluster size

One whole cycle as the leader runs it, measured by ` + "`BenchmarkCycle`" + ` in
server/schedglue: an MVCC snapshot of a real FSM's store, ` + "`schedglue.Input`" + `
(candidates, the one sort of the queue), ` + "`scheduler.Schedule`" + ` and the plan as
the ApplyPlan command (committing it is Raft's cost, measured above). The
jobs were submitted as SubmitJob entries and one applied cycle filled the
cluster; the measured cycle is the steady state of a long queue:
strict_ordering with backfill_depth 10, by_queue over two queues, every job
with a walltime, demand several times the cluster (a mix of 1-cpu, multi-chunk,
scatter, pack, exclusive and host-pinned jobs; one host in twenty has four
vnodes of 32 cpus, the rest one). "CPU time" is the process's user and
system time per cycle, garbage collection included: on this shared 2-core
machine it is the cost of a cycle, while wall time also counts whatever else
ran. "First cycle" is the one cycle that filled the empty cluster (hundreds
of thousands of decisions at the largest size), measured once.

` + table + `
![cycle time against queued jobs](cycle-time.png)

What bounds each figure:

* The steady-state cycle is linear in queued jobs: each job costs one class
  lookup (jobs with the same select, place and queue share one compiled
  request and, once one fails, one verdict) and a comparison of its comment.
  The rest is the one sort of the queue (n log n, small constant), the
  calendar (linear in running jobs: one release per job, each vnode's free
  profile built only when asked) and backfill_depth top-job estimates, each a
  walk over the calendar's steps plus placement attempts where the cluster
  total says the job could fit.
* Vnodes enter through node order (sorted once per cycle with static
  keys), the cursors that let each chunk shape skip vnodes already seen
  full, and pinned chunks (host=, vnode=) that look only at their
  candidates.
* The first cycle is bounded by the decisions it makes: each started job
  builds its exec list and adds its release to the calendar, merged into the
  profile in one pass when it is next read.

OpenPBS, measured by its developers (reference pbs-scheduling.md, section 8):
88 s to place 50,000 jobs on 50,000 vnodes, and about 700 s for one cycle
with one large top job under backfill. The comparable Strata figures are the
first cycle at 100,000 and 1,000,000 queued jobs (it places every job that
fits, on 10,000 and 50,000 vnodes) and the steady-state cycle with ten top
jobs.
`
}
