// Command strata-pbs is the PBS user commands alone (qsub, qstat, qdel,
// qmgr, pbs_rsub, ... everything in cmd/pbscmd): bin/qsub and the other
// command links point to it. It is the same code `strata qsub` runs, in a
// binary that links nothing else.
//
// Why a second binary: a PBS command is a new process every time, often
// thousands a minute from workflow managers, and its cost is mostly the
// start-up of its executable. The multi-call strata binary (26 MB, cgo)
// maps and initialises the server, Raft, the agent, Prometheus and SSH
// before main; this one is about half the size, is built without cgo
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
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/pbscmd"
	"github.com/strata-hpc/strata/server/api"
)

func main() {
	os.Exit(run(os.Args))
}

// run is the command named by argv[0] (a link such as bin/qsub), or
// "strata-pbs COMMAND ARGS..." as "strata COMMAND ARGS..." would run it.
func run(args []string) int {
	cmds := append(pbscmd.Commands(), pbscmd.ReservationCommands()...)
	name := filepath.Base(args[0])
	for _, c := range cmds {
		if c.Name == name {
			return pbscmd.RunAlone(c, args)
		}
	}
	app := &cli.App{
		Name:           name,
		Usage:          "the PBS commands of Strata (usually run through links named like them: qsub, qstat, ...)",
		Version:        api.PBSVersion,
		Commands:       cmds,
		ExitErrHandler: func(*cli.Context, error) {},
	}
	if err := app.Run(args); err != nil {
		return pbscmd.Report(name, err)
	}
	return 0
}
