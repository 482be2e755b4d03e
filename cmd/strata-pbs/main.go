// Command strata-pbs is the PBS user commands alone (qsub, qstat, qdel,
// qmgr, pbs_rsub, ... everything in cmd/pbscmd): bin/qsub and the other
// command links point to it. It is the same code `strata qsub` runs, in a
// binary that links nothing else.
//
// Why a second binary: a PBS command is a new process every time, often
// thousands a minute from workflow managers, and its cost is mostly the
// start-up of its executable. The multi-call strata binary (26 MB, cgo)
// maps and initialises the server, Raft, the agent, Prometheus and SSH
// before main; this one is half the size, is built without cgo
// (statically linked: no dynamic loader, no libc) and initialises only
// what a command uses. Nothing in the commands needs cgo: the caller's
// identity is established by the server (SO_PEERCRED on the socket, MUNGE
// over TCP), never by a user or group lookup here, so LDAP or SSSD users
// are resolved where they always were, in the server through NSS.
//
// The name: "strata-" keeps it beside the strata binary and out of the way
// of an OpenPBS installation's programs; "pbs" says what it is.
package main

import (
	"os"
	"runtime"

	"github.com/strata-hpc/strata/cmd/pbscmd"
)

func main() {
	// One P: a command is one goroutine waiting on one server at a time
	// (net/http adds a reader and a writer that hand the connection back
	// and forth). With a P per CPU a hand-off can wake a thread on
	// another CPU; with one they run in turn on the same thread. Measured
	// on a 2-CPU VM: a qsub cost 5-10 % less CPU, 30 fewer page faults
	// and about 15 % less wall time. An explicit GOMAXPROCS in the
	// environment still wins.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	os.Exit(pbscmd.Main(os.Args))
}
