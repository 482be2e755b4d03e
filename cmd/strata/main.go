// Command strata is Strata's multi-call binary: the server, the node agent,
// the local-cluster tool and every PBS command ("strata qsub ..."). The PBS
// command links (bin/qsub, ...) point to cmd/strata-pbs, the commands
// alone in a binary that starts in half the time; invoked through a link
// named like a PBS command, this one behaves as that command too.
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
	// A link named like a PBS command (installations link them to
	// strata-pbs, but a link to strata works the same).
	if c, ok := pbscmd.Lookup(filepath.Base(args[0])); ok {
		return pbscmd.RunAlone(c, args)
	}
	cmds := allCommands()
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
	cmds = append(cmds, pbsCommands()...)
	return cmds
}
