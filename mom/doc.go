// Package mom is Strata's node agent (the PBS MoM): it registers its host's
// vnodes with the server, heartbeats, long-polls for the jobs it must run as
// mother superior and runs each one under a per-job shepherd process.
//
// The shepherd is a separate static executable, strata-shepherd
// (cmd/strata-shepherd, package mom/shepherd), which the agent finds next
// to its own executable. It lives in its own session so that the agent can
// restart, or die, without losing jobs: every fact about a job is kept in
// its spool directory, and a new agent rebuilds its view from there.
//
// Spool layout (directories 0700, files 0600: private to the agent):
//
//	<spool>/shepherd.log                      what the shepherds have to say
//	<spool>/jobs/<jobid>.<run>/job.json       the job as the server sent it, the
//	                                          shepherd parameters (cgroup layout,
//	                                          the owner as NSS resolved it)
//	                           launch.json    the parameters, in records of
//	                                          earlier releases
//	                           shepherd.pid   shepherd pid, start time, boot id
//	                           job.pid        job pid (= pgid = session id)
//	                           stdout, stderr spooled output (not with -k o/e/d)
//	                           signals.json   qsig requests of this run (agent)
//	                           signals_done.json highest request delivered (shepherd)
//	                           usage.json     live resources_used (shepherd)
//	                           result.json    written atomically when done
//	<spool>/undelivered/                      output that could not be delivered
//
// What the job reads as its owner lives outside the spool, next to TMPDIR:
//
//	<tmpdir>/pbs.<jobid>/                     TMPDIR (0700, the user's)
//	<tmpdir>/pbs.aux/                         shared by all jobs (root, 0711)
//	                 <jobid>.SC               the job script (the user's, 0500)
//	                 <jobid>                  PBS_NODEFILE (the user's, 0400)
//
// Each run's processes are in the cgroup job-<jobid>.<run>
// (shepherd/cgroup.go).
//
// Files that cross hosts -- output to host:path, -W stagein/stageout --
// are copied by the transfer helper ("mom-shepherd transfer",
// stage_helper.go), which runs as the job's owner: locally when the path
// is this host's or usecp-mapped, else over SSH/SFTP with the owner's key
// and known_hosts (ssh_client.go; docs/staging.md).
package mom
