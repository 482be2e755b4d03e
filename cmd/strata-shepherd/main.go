// Command strata-shepherd supervises one job for the node agent (strata
// mom): the agent starts one per job, "strata-shepherd run <jobdir>", and
// it outlives the agent. It is a separate, statically linked executable
// with only what supervising a job needs (package mom/shepherd): a job
// start pays its process start-up, and the multi-call strata binary's
// (dynamic loading for cgo, every package's initialisation) was most of a
// short job's cost. The agent resolves the job owner's identity through
// NSS and passes it in the launch record, so this needs no cgo.
//
// The shepherd's parallelism does not matter: the runtime neither applies
// the cgroup CPU limit (containermaxprocs) nor re-reads it every second
// for as long as the job runs (updatemaxprocs).
//
//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0
package main

import (
	"os"

	"github.com/strata-hpc/strata/mom/shepherd"
)

func main() { os.Exit(shepherd.Main(os.Args[1:])) }
