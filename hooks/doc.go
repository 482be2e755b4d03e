// Package hooks is the runner that executes one site hook: an executable
// that receives its event as JSON on stdin (the job under its PBS attribute
// names, JobAttrs) and in STRATA_HOOK_* variables and answers with its exit
// status and, optionally, JSON on stdout. application/x-python hooks also
// get the pbs module (python/pbs, embedded and written next to the hook
// scripts), OpenPBS's hook interface on top of the same protocol. The
// rules on hook settings (events, defaults, what may be combined) are
// model's (model/hookrules.go), so the FSM checks them without depending
// on this process runner.
//
// The server runs the server events (queuejob, modifyjob, movejob, runjob,
// resvsub, periodic, provision); agents run the execjob_* and exechost_*
// events. docs/hooks.md describes the protocol and the module.
package hooks
