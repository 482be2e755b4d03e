// Package hooks holds the rules of site hooks (events, defaults, what may be
// combined) and the runner that executes one hook: an executable that
// receives its event as JSON on stdin and in STRATA_HOOK_* variables and
// answers with its exit status and, optionally, JSON on stdout.
//
// The server runs the server events (queuejob, modifyjob, movejob, runjob,
// resvsub, periodic, provision); agents run the execjob_* and exechost_*
// events. docs/hooks.md describes the protocol.
package hooks
