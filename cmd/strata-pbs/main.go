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

	"github.com/strata-hpc/strata/cmd/pbscmd"
)

func main() {
	os.Exit(pbscmd.Main(os.Args))
}
