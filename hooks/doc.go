// Package hooks is the runner that executes one site hook: an executable
// that receives its event as JSON on stdin and in STRATA_HOOK_* variables
// and answers with its exit status and, optionally, JSON on stdout. The
// rules on hook settings (events, defaults, what may be combined) are
// model's (model/hookrules.go), so the FSM checks them without depending
// on this process runner.
//
// The server runs the server events (queuejob, modifyjob, movejob, runjob,
// resvsub, periodic, provision); agents run the execjob_* and exechost_*
// events. docs/hooks.md describes the protocol.
package hooks
