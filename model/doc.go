// Package model is Strata's shared vocabulary: jobs, vnodes, resources, the
// select/place request grammar, job identifiers and PBS error numbers.
//
// Every other package (server, raftstore, scheduler, policy, mom, cmd) speaks in
// these types, so they hold no behaviour beyond parsing, formatting and small
// pure helpers. Values stored in the replicated state are treated as immutable:
// code that changes a Job or Vnode copies it first (see Job.Copy, Vnode.Copy).
package model
