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
submitted through the API (64 in flight) on the cluster of the whole
bench (that server has already taken the other measurements' 12,000
submissions, so its heap and free lists are not fresh). ` + "`strata bench --figures mem`" + ` measures the same on a fresh cluster
with one agent and splits it: anonymous memory (the Go heap) against file
pages (the mapped Raft log), with the server's heap figures, submission rate
and CPU per job, and samples it again 15 s after the burst, the server idle. ` + "`TestMemoryPerQueuedJob`" + ` (raftstore) measures the state
store alone: the live heap per job after 20,000 held jobs as qsub submits
them (nine PBS_O_* variables, a short script, random submission tokens,
group commits of 64), the accounting table full before it starts.

| | state store, live heap | server RSS growth per job, end of the burst | the same, 15 s later (idle) |
|---|---:|---:|---:|
| before the compact representation | 4,280 B | | |
| compact representation and token map (main at c13836b) | 2,273 B | 5,800 B (5,314-6,500) | 5,634 B (5,575-6,154) |
| this work | **1,505 B** | **3,917 B** (3,521-4,227) | **2,959 B** (2,837-3,112) |
| this work before the idle trim, with ` + "`GOGC=50`" + ` | | 3,152 B (3,133-3,260) | |
| this work before the idle trim, with ` + "`GOGC=25`" + ` | | 2,669 B (2,653-2,700) | |

RSS per job: medians of 9 runs (main) and 6 runs (this work) of
` + "`strata bench --figures mem`" + ` at the end of the burst, 3 and 6 for the idle
sample, 3 for each GOGC row, measured on 2026-11-27 while other work
loaded the 2 cores (load average 4 to 17), main and this work
alternated. The figure at the end of a burst moves by a few hundred bytes
from run to run with the moment of the last collection. Server CPU per
submission in the same runs (HTTP, identity, rules, Raft with fsync, FSM):
median 0.26 ms on main and 0.29 ms with this work (each 0.23 to 0.33 ms
under that load), 0.31-0.34 ms with GOGC=50 and 0.40-0.45 ms with GOGC=25.

Where a queued job's memory goes now (the RSS at the end of the burst,
per job): about 360 bytes are file pages, the Raft log's bbolt pages
mapped in while entries are appended (clean page cache the kernel can
reclaim, not heap); the rest is the Go heap, which at the default GOGC=100
grows to twice the live heap of its last collection before the next: about
3.3 to 4.0 KB of heap for about 1.6 to 2.0 KB live. Of the live bytes:

* the job row, model.Job: **704 bytes** (it was 1,040 bytes, in the
  1,152-byte size class). The attributes most queued jobs never set (mother
  superior, exclusive placement, obit time, kill request and signals,
  deleter, estimates and topjob, never-run epoch, execution time,
  dependencies, group_list, umask, staging, create_resv_from_job,
  preemption state, a subjob's array id and index, the interactive
  session) are in model.JobExt (model/job_ext.go), allocated when one of
  them is first set. Job embeds *JobExt, so encoding/json writes and reads
  them as the job's own attributes: the Raft log, snapshots, the API and
  agents' spool records carry the same names and values, only later in
  the object, and records of either layout read into the other (test with
  the old layout). Code uses accessors named as the fields (a method hides
  the promoted field, so the compiler found every reader; a nil JobExt
  reads as zero values); Copy and Dup give a copy its own JobExt;
* the go-memdb id index: about **450 bytes** (a radix leaf and node, each
  with its own watch channel, and the key);
* its own strings (id, submission token, output and error paths): about 150
  bytes, and its entry in the submission-token map (raftstore/tokens.go):
  about 60;
* the jobs of each state: about 20 bytes. go-memdb's state index cost
  about 450 bytes per job; the scheduler, the FSM and the server only list
  a state's jobs and nobody watched that index, so they are now kept in
  groups of up to 64 jobs of one state near in submission order, rows of
  a table of their own changed in the same transactions
  (raftstore/index_state.go): a snapshot (the scheduler's MVCC view) sees
  its own version, an aborted entry leaves them as they were, and they are
  rebuilt on restore (not in snapshots or the log);
* the accounting table, bounded at 10,000 records, was one go-memdb row per
  record (about 450 bytes of index for a record of about 100); it is in
  chunks of 64 records now (raftstore/acct_chunks.go; snapshots still hold
  one record each): about 3.5 MB less once full, some 175 bytes per job in
  this 20,000-job figure (the state-store test fills the table first and
  does not count it).

Two changes act on the heap's slack rather than its live bytes. The FSM
stores a submitted job as decoded from its entry instead of a copy of it
(the copy left the decoded row behind as garbage in the same size class,
so a burst left the spans of rows half empty once collected). And the
server returns its free heap to the system once it is idle
(server/memtrim.go): every 5 s it reads a few runtime counters, and when
less than 1/32 of the live heap (at most 16 MiB) was allocated since the
last check while the heap holds more than a quarter of the live heap
beyond it (at least 16 MiB), it runs one collection and releases the free
pages (debug.FreeOSMemory), at most once a minute. It costs nothing while
the server works, one collection after a burst, and stays out of the way
when the site set GOMEMLIMIT or GOGC=off. What is left after it is the
live heap and the allocator's fragmentation (rows and strings kept beside
the garbage of the requests that made them: about 600 bytes per job).

qstat -f is byte-identical (golden test over jobs stored by a real FSM),
and the cycle benchmarks did not get slower: BenchmarkCycle at 10,000 jobs,
6 samples each alternated, 27.5 ms of CPU per cycle before and 24.8 after
(medians; the same allocations, 1% fewer bytes); scheduler/
BenchmarkSchedule10kJobs2kVnodes and the strict-ordering depth-10
benchmark at 20,000 jobs the same or faster in each alternated pair;
BenchmarkFSMApplySubmit (raftstore) 20 to 30% faster in each of 4
alternated pairs, with 28 KB allocated per submission instead of 35.

What is left, and why 2 KiB is not met: at the end of a burst, at
GOGC=100, the RSS is about twice the live heap plus the mapped log, so 2
KiB would need about 850 live bytes per job, less than the row and its id
index alone (about 1,150); once idle it is the live heap (about 1.6 KB per
job in the server), the fragmentation (about 600) and the mapped log
(about 300). The next steps are, by size: the jobs table in chunks like the finished subjobs (an
id-index entry per 64 jobs instead of per job, about 440 bytes per job, but
every reader of the jobs table and its ms, array and dep indexes changes);
the submission-time attributes identical jobs share (owner, queue, project,
mail, shell, join, keep: a shared part copied on write, about 300 bytes);
and less GC headroom, which costs CPU: ` + "`GOGC=25`" + ` brings the figure to 2.7 KB
for about 50% more server CPU per submission and 45% more CPU per
scheduling cycle (BenchmarkCycle at 10,000 jobs, 31 to 45 ms), and even that
is not 2 KiB, so the default stays GOGC=100 and no memory limit is set. A
site that prefers memory to CPU sets ` + "`GOGC`" + ` (50: 3.2 KB for about 20% more
CPU per submission) or a ` + "`GOMEMLIMIT`" + ` in the server's environment (an
Environment= line in the systemd unit), which the Go runtime reads.

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
