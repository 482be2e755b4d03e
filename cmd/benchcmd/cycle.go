package benchcmd

// cycleSection is the report's section on one scheduling cycle at cluster
// size: the medians table cmd/benchplot made from BenchmarkCycle, the
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
with one large top job under backfill. The first is measured the same way
above (one cycle over a real FSM's snapshot placing every job). For the
second, the steady-state cycles of the table carry ten top jobs each, at
up to 836,815 queued jobs on 50,000 vnodes.

## Server memory per queued job

The table above gives the server's RSS growth over 20,000 held jobs
submitted through the API. ` + "`TestMemoryPerQueuedJob`" + ` (raftstore) measures the
state store alone: the live heap after 20,000 held jobs as qsub submits
them (nine PBS_O_* variables, a short script, random submission tokens,
group commits of 64).

Where a job's memory goes, and what the compact representation changed
(raftstore/compact.go): the decoded Raft entry used to give every job its
own copy of its owner, queue, project, history lines, Variable_List, select
and Resource_List. Before a job is stored, repeated strings now go through
` + "`unique.Make`" + ` (canonical copies the runtime frees when no job refers to
them) and Variable_List, the select and Resource_List are shared by content
with identical jobs through bounded tables. Values do not change: qstat -f
is byte-identical (golden test over jobs stored by a real FSM), and the Raft
log and snapshot formats are untouched, so existing data reads as before.

What remains per job: the row itself (model.Job, 944 bytes, a 1 KiB size
class), the three go-memdb indexes a queued job is in (id, state and the
submission token; about 1.5 KiB, since every radix node and leaf carries
its own watch channel) and its unique strings (id, token, output and error
paths). RSS is about twice the live heap after a burst, the Go collector's
headroom at GOGC=100. Next steps toward 2 KiB: a slimmer row (the fields
queued jobs never set in a side structure), tokens in a bounded
deduplication window instead of an index over every job, and a memory limit
for the server's collector.
`
}
