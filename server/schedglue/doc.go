// Package schedglue is the glue between the replicated state and the
// scheduler: it builds the scheduler's input from a state-store snapshot
// (Input: the candidates after max_run, the scheduling policy from the
// sched object, queue defaults, provisioning estimates, live
// reservations) and turns the scheduler's plan into the one command the
// leader commits (Command).
//
// It sits between raftstore and scheduler, so that neither imports the
// other: the scheduler stays a pure function of a Snapshot and the FSM
// stays free of scheduling policy. The server's leader loop (timing, log
// lines, runjob hooks) and the simulator both use it, and Harness runs a
// whole cycle over a real FSM in memory for tests, as Nomad's
// scheduler.Harness does.
package schedglue
