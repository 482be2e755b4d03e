// Package mom is Strata's node agent (the PBS MoM): it registers its host's
// vnodes with the server, heartbeats, long-polls for the jobs it must run as
// mother superior and runs each one under a per-job shepherd process.
//
// The shepherd (ShepherdMain, wired as the hidden "strata mom-shepherd"
// subcommand) lives in its own session so that the agent can restart, or
// die, without losing jobs: every fact about a job is kept in its spool
// directory, and a new agent rebuilds its view from there.
//
// Spool layout:
//
//	<spool>/jobs/<jobid>.<run>/job.json       the job as the server sent it
//	                           launch.json    shepherd parameters
//	                           script         the job script (owned by the user)
//	                           nodefile       PBS_NODEFILE
//	                           shepherd.pid   shepherd pid, start time, boot id
//	                           job.pid        job pid (= pgid = session id)
//	                           stdout, stderr spooled output (not with -k o/e/d)
//	                           signals.json   qsig requests of this run (agent)
//	                           signals_done.json highest request delivered (shepherd)
//	                           usage.json     live resources_used (shepherd)
//	                           result.json    written atomically when done
//	<spool>/undelivered/                      output that could not be delivered
package mom
