// Package pbscmd implements the PBS user commands (qsub, qstat, qdel,
// pbsnodes, ...) on top of the server API, with OpenPBS's option syntax,
// output layouts, messages and exit codes.
package pbscmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Commands returns the PBS commands implemented so far.
func Commands() []*cli.Command {
	return []*cli.Command{
		command("qsub", "submit a batch job", Qsub),
		command("qstat", "show the status of batch jobs", Qstat),
		command("qdel", "delete batch jobs", Qdel),
		command("pbsnodes", "show the status of vnodes and hosts", Pbsnodes),
		command("qhold", "hold batch jobs", Qhold),
		command("qrls", "release holds on batch jobs", Qrls),
		command("qalter", "alter batch jobs", Qalter),
		command("qsig", "signal batch jobs", Qsig),
		command("qselect", "select batch jobs", Qselect),
		command("qmove", "move batch jobs to another queue", Qmove),
		command("qrerun", "requeue running batch jobs", Qrerun),
		command("qrun", "run batch jobs now", Qrun),
		command("qorder", "exchange the order of two batch jobs", Qorder),
		command("tracejob", "show the life of a batch job", Tracejob),
		command("qmgr", "administer the server's configuration", Qmgr),
		command("pbsfs", "show and change fairshare usage", Pbsfs),
	}
}

// command wraps a PBS command for urfave/cli. Flag parsing is skipped here:
// each command parses its own getopt-style words (see normalizeGetopt), so
// "qsub ..." and "strata qsub ..." see exactly the same arguments.
func command(name, usage string, run func(context.Context, *Env, []string) int) *cli.Command {
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		SkipFlagParsing: true,
		HideHelp:        true,
		Action: func(c *cli.Context) error {
			ctx := c.Context
			if ctx == nil {
				ctx = context.Background()
			}
			if code := run(ctx, OSEnv(), c.Args().Slice()); code != 0 {
				// The command has already printed its diagnostics.
				return cli.Exit("", code)
			}
			return nil
		},
	}
}

// Later returns placeholder commands for PBS commands that a later release
// provides: they say so and exit non-zero, so scripts fail loudly.
func Later(names ...string) []*cli.Command {
	var out []*cli.Command
	for _, n := range names {
		n := n
		out = append(out, &cli.Command{
			Name:            n,
			Usage:           "not available yet",
			SkipFlagParsing: true,
			Action: func(*cli.Context) error {
				return cli.Exit(n+": this command is not implemented in this Strata release yet", 1)
			},
		})
	}
	return out
}

// RunAlone runs one command as if it were the whole program (argv[0] was a
// link named like the command).
func RunAlone(c *cli.Command, args []string) int {
	app := &cli.App{
		Name:            c.Name,
		HideHelpCommand: true,
		Flags:           c.Flags,
		Action:          c.Action,
		SkipFlagParsing: c.SkipFlagParsing,
		ExitErrHandler:  func(*cli.Context, error) {},
		HideVersion:     true,
	}
	if len(args) == 2 && args[1] == "--version" {
		fmt.Printf("pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	if err := app.Run(args); err != nil {
		return Report(c.Name, err)
	}
	return 0
}

// Report prints err the PBS way ("cmd: message" on stderr) and returns the
// exit status: the PBS error number mod 256, or the code of a cli.Exit.
func Report(cmd string, err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		return ec.ExitCode()
	}
	if pe, ok := model.AsPBSError(err); ok {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd, pe.Msg)
		return pe.ExitCode()
	}
	var ce *api.ConnectError
	if errors.As(err, &ce) {
		fmt.Fprintf(os.Stderr, "%s: %s\n", cmd, ce.Error())
		return 1
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", cmd, err)
	return 1
}
