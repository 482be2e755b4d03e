// Command strata is Strata's single multi-call binary: the server, the node
// agent, the local-cluster tool and every PBS command. Invoked through a link
// named like a PBS command (bin/qsub -> strata) it behaves as that command;
// "strata qsub ..." does the same.
package main

import (
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/benchcmd"
	"github.com/strata-hpc/strata/cmd/clustercmd"
	"github.com/strata-hpc/strata/cmd/pbscmd"
	"github.com/strata-hpc/strata/cmd/provisioncmd"
	"github.com/strata-hpc/strata/cmd/simcmd"
	"github.com/strata-hpc/strata/cmd/webcmd"
	"github.com/strata-hpc/strata/server/api"
)

func main() {
	os.Exit(run(os.Args))
}

func run(args []string) int {
	cmds := allCommands()
	name := filepath.Base(args[0])
	if name != "strata" {
		for _, c := range cmds {
			if c.Name == name {
				return pbscmd.RunAlone(c, args)
			}
		}
	}
	app := &cli.App{
		Name:           "strata",
		Usage:          "a PBS-compatible batch scheduler with AOE provisioning",
		Version:        api.PBSVersion,
		Commands:       cmds,
		ExitErrHandler: func(*cli.Context, error) {},
	}
	if err := app.Run(args); err != nil {
		return pbscmd.Report("strata", err)
	}
	return 0
}

func allCommands() []*cli.Command {
	var cmds []*cli.Command
	cmds = append(cmds, serverCommand(), momCommand(), shepherdCommand(), genManCommand(), genCompletionCommand(), tlsCommand(), operatorCommand(), clustercmd.Command(), benchcmd.Command(), benchcmd.SimCommand(), simcmd.Command(), provisioncmd.Command(func(name string) *api.Client { return pbscmd.OSEnv().Connect(name).(*api.Client) }))
	cmds = append(cmds, webcmd.Command(func(name string) *api.Client { return pbscmd.OSEnv().Connect(name).(*api.Client) }))
	cmds = append(cmds, pbscmd.Commands()...)
	cmds = append(cmds, pbscmd.ReservationCommands()...)
	return cmds
}
