// Package pbscmd implements the PBS user commands (qsub, qstat, qdel,
// pbsnodes, ...) on top of the server API, with OpenPBS's option syntax,
// output layouts, messages and exit codes.
//
// The package does not import a CLI framework: each command parses its own
// getopt words (parse.go), and the binary that links only the commands
// (cmd/strata-pbs, started for every qsub) would pay for the framework's
// package initialisation without using it. The multi-call strata binary
// wraps Table for its own command tree.
package pbscmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Command is one PBS command: Run gets the words after the command's name
// and returns the exit status, having printed its own diagnostics.
type Command struct {
	Name  string
	Usage string
	Run   func(ctx context.Context, env *Env, args []string) int
}

// Table is every PBS command, job commands first, then the reservation
// commands.
func Table() []Command {
	return []Command{
		{"qsub", "submit a batch job", Qsub},
		{"qstat", "show the status of batch jobs", Qstat},
		{"qdel", "delete batch jobs", Qdel},
		{"pbsnodes", "show the status of vnodes and hosts", Pbsnodes},
		{"qhold", "hold batch jobs", Qhold},
		{"qrls", "release holds on batch jobs", Qrls},
		{"qalter", "alter batch jobs", Qalter},
		{"qsig", "signal batch jobs", Qsig},
		{"qselect", "select batch jobs", Qselect},
		{"qmove", "move batch jobs to another queue", Qmove},
		{"qrerun", "requeue running batch jobs", Qrerun},
		{"qrun", "run batch jobs now", Qrun},
		{"qorder", "exchange the order of two batch jobs", Qorder},
		{"tracejob", "show the life of a batch job", Tracejob},
		{"qmgr", "administer the server's configuration", Qmgr},
		{"pbsfs", "show and change fairshare usage", Pbsfs},
		{"pbs_rsub", "submit an advance or standing reservation", Rsub},
		{"pbs_rstat", "show the status of reservations", Rstat},
		{"pbs_rdel", "delete reservations", Rdel},
		{"pbs_ralter", "alter a reservation", Ralter},
	}
}

// Lookup returns the command called name.
func Lookup(name string) (Command, bool) {
	for _, c := range Table() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// RunAlone runs one command as if it were the whole program (argv[0] was a
// link named like the command): args[1:] are its words; a lone --version
// prints the PBS version, as every PBS command does.
func RunAlone(c Command, args []string) int {
	if len(args) == 2 && args[1] == "--version" {
		fmt.Printf("pbs_version = %s\n", api.PBSVersion)
		return 0
	}
	return c.Run(context.Background(), OSEnv(), args[1:])
}

// Main is the program of the binary that holds only the PBS commands: the
// command named by argv[0] (a link such as bin/qsub), or
// "NAME COMMAND ARGS..." as "strata COMMAND ARGS..." runs it.
func Main(args []string) int {
	name := filepath.Base(args[0])
	if c, ok := Lookup(name); ok {
		return RunAlone(c, args)
	}
	if len(args) < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help" {
		fmt.Print(mainUsage(name))
		return 0
	}
	if args[1] == "--version" || args[1] == "-v" {
		fmt.Printf("%s version %s\n", name, api.PBSVersion)
		return 0
	}
	c, ok := Lookup(args[1])
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: unknown command %q\n%s", name, args[1], mainUsage(name))
		return 2
	}
	return c.Run(context.Background(), OSEnv(), args[2:])
}

// mainUsage is Main's help: what the binary is and its commands.
func mainUsage(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s COMMAND [ARGS...]\n\nThe PBS commands of Strata, usually run through links named like them\n(qsub, qstat, ...). Commands:\n\n", name)
	for _, c := range Table() {
		fmt.Fprintf(&b, "   %-11s %s\n", c.Name, c.Usage)
	}
	return b.String()
}

// Report prints err the PBS way ("cmd: message" on stderr) and returns the
// exit status: the PBS error number mod 256, or the code of an error that
// carries one (urfave/cli's cli.Exit in the strata binary).
func Report(cmd string, err error) int {
	var ec interface {
		error
		ExitCode() int
	}
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
