// Package sim replays a Standard Workload Format (SWF) trace through the
// real scheduler in virtual time.
//
// It is event driven: the only times that matter are submissions and job
// ends. At each such time the simulator releases the vnodes of jobs that
// ended, queues the jobs submitted, and runs one scheduler.Schedule cycle
// over a Snapshot it keeps up to date, exactly as the server does; it then
// applies the plan (starts, comments, top-job estimates) as the server's
// Raft apply would (TestSameOutcomeAsTheStateMachine replays traces
// through the server's FSM and compares). Nothing here reads a clock, so the same trace and
// options give byte-identical results.
//
// docs/simulate.md describes the SWF-to-Strata mapping and the metrics.
package sim
