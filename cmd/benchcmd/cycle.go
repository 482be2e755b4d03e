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
group commits of 64). It is **2,145 bytes per job** (2,524 before the
token index went, 4,280 before the compact representation).

Where a job's memory goes, and what the compact representation changed
(raftstore/compact.go): the decoded Raft entry used to give every job its
own copy of its owner, queue, project, history lines, Variable_List, select
and Resource_List. Before a job is stored, repeated strings now go through
` + "`unique.Make`" + ` (canonical copies the runtime frees when no job refers to
them) and Variable_List, the select and Resource_List are shared by content
with identical jobs through bounded tables. Values do not change: qstat -f
is byte-identical (golden test over jobs stored by a real FSM), and the Raft
log and snapshot formats are untouched, so existing data reads as before.

The submission token, used only by the FSM to answer a retried qsub with
the job it already made, had a go-memdb index of its own (about 450 bytes
per job: a radix node and a leaf, each with its own watch channel). It is
now a plain map from token to job id (raftstore/tokens.go), derived from
the jobs' Token fields that the log and snapshots carry as before: rebuilt
on restore, every answer checked against the transaction's job, removals
applied only when the deleting transaction commits (tests: a retry after
a restore, after a purge, and around a batch with a panicking entry).

What remains per job: the row itself (model.Job, 1,008 bytes, a 1 KiB size
class), the two go-memdb indexes every queued job is in (id and state;
about 500 bytes each) and its own strings (id, token, output and error
paths, about 150 bytes). The other indexes (ms, dep, array) allow missing
values and cost a held job nothing. The 2 KiB target is therefore not met
by the state store: the next step is a slimmer row (the fields queued jobs
never set, such as exec_vnode, estimates, signals and the interactive
session, in a side structure allocated when one is set), a change to
model.Job that every part of the server reads.

RSS is more than the live heap: the Go collector lets the heap grow to
twice the live size before it collects (GOGC=100), so the RSS growth per
job is about 2 to 2.5 times the live figure, and it includes the Raft log
cache (now 128 entries instead of 512: at cluster size one ApplyPlan entry
is megabytes) and the bbolt pages of the Raft log that are mapped in. A
site that prefers memory to CPU can run the server with ` + "`GOGC=50`" + ` or a
` + "`GOMEMLIMIT`" + ` in its environment (an Environment= line in the systemd
unit), which the Go runtime reads; the defaults are unchanged. Measured
the way make bench does it (the server's RSS growth over 20,000 held jobs
submitted through the API, 64 in flight, on a fresh cluster with one
agent), the same day and load: 6,445 bytes per job before this work,
5,552 after, 4,056 with GOGC=50 (the table at the top of this file is
from the last full make bench, before this work).

## Finished subjobs

A subjob gets a full job row when it starts. Kept as history, each finished
one used to cost a model.Job and four index entries (id, state, ms, array):
3,908 bytes of live heap per subjob (` + "`TestMemoryPerFinishedSubjob -v`" + `, 10,000
subjobs on 100 hosts), about 15 KB of RSS in the cluster-size run below. A
finished subjob is now a compact record (raftstore/subjob_history.go): its
own fields (times, exit status, resources_used, exec_vnode, history lines,
comment, session) and a pointer to a template it shares with its siblings
(everything it copied from the parent), stored in chunks of 64 by index
under its array (raftstore/subjob_chunks.go), so that go-memdb's index
entry, about 500 bytes with its watch channels, is paid once per chunk:
**683 bytes**. resources_used and exec_vnode are shared by content. Reads
rebuild the same job value field for field (qstat -f -x, tracejob and the
accounting views are functions of it): an equivalence test runs the same
array life (exits, qdel, qdel -W force, requeue and rerun, qdel -x) through
a store with compact records and one with full rows and compares every
read; snapshots still write finished subjobs as full jobs, and an old
snapshot or Raft log with full subjob rows loads into compact records
(tests). qstat's reply is written as it is made (server/jobstream.go): a
subjob is built, encoded and dropped in turn instead of the whole reply
being built in memory, byte-identical to before (golden test).
`
}
