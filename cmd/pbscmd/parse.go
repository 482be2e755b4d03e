package pbscmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// cmdError is a failure already worded for the user. The command prints
// "<cmd>: <Msg>" on stderr when Msg is set, then its usage text when Usage
// is set, and exits with Code.
type cmdError struct {
	Msg   string
	Code  int
	Usage bool
}

func (e *cmdError) Error() string { return e.Msg }

// usageErr is a usage error: the message, the usage text and the command's
// usage exit status.
func usageErr(code int, format string, args ...any) *cmdError {
	return &cmdError{Msg: fmt.Sprintf(format, args...), Code: code, Usage: true}
}

// failErr is a plain failure with a message and an exit status.
func failErr(code int, format string, args ...any) *cmdError {
	return &cmdError{Msg: fmt.Sprintf(format, args...), Code: code}
}

// printCmdError writes e for cmd and returns its exit status.
func printCmdError(w io.Writer, cmd, usage string, e *cmdError) int {
	if e.Msg != "" {
		fmt.Fprintf(w, "%s: %s\n", cmd, e.Msg)
	}
	if e.Usage {
		io.WriteString(w, usage)
	}
	return e.Code
}

// flagsFromSpec builds the urfave flag set of a getopt spec: a string flag
// for each option with a value (a slice flag for the repeatable ones), a
// bool flag for the others. Deriving both from one spec keeps the getopt
// normalizer and urfave in agreement.
func flagsFromSpec(spec optSpec, repeatable string) []cli.Flag {
	var flags []cli.Flag
	for i := 0; i < len(spec); i++ {
		c := spec[i]
		if c == ':' {
			continue
		}
		name := flagName(c)
		_, hasValue := spec.takesValue(c)
		switch {
		case hasValue && containsByte(repeatable, c):
			flags = append(flags, &cli.StringSliceFlag{Name: name})
		case hasValue:
			flags = append(flags, &cli.StringFlag{Name: name})
		default:
			flags = append(flags, &cli.BoolFlag{Name: name})
		}
	}
	return flags
}

// flagName is the urfave flag name of an option letter. urfave/cli takes a
// true flag named "h" as a request for help even when help is hidden, and
// qsub -h means hold, so that letter is registered under another name.
func flagName(c byte) string {
	if c == 'h' {
		return "h-opt"
	}
	return string(c)
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// parseOptions normalizes args (the words after the command name) with
// spec and parses them with urfave/cli, handing fn the parsed context and
// the getopt split. Getopt diagnostics come back as *getoptError.
func parseOptions(cmd string, spec optSpec, repeatable string, args []string, fn func(*cli.Context, getoptArgs) error) error {
	g, err := normalizeGetopt(spec, args)
	if err != nil {
		return err
	}
	app := &cli.App{
		Name:            cmd,
		Flags:           flagsFromSpec(spec, repeatable),
		HideHelp:        true,
		HideHelpCommand: true,
		HideVersion:     true,
		Writer:          io.Discard,
		ErrWriter:       io.Discard,
		// PBS values such as -v "a='x,y'" carry commas that must not split.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		Action:                    func(c *cli.Context) error { return fn(c, g) },
	}
	if err := app.Run(g.Argv(cmd)); err != nil {
		return err
	}
	return nil
}

// presentFlags lists, in spec order, the option letters set in c.
func presentFlags(c *cli.Context, spec optSpec) []byte {
	var out []byte
	for i := 0; i < len(spec); i++ {
		if spec[i] != ':' && c.IsSet(flagName(spec[i])) {
			out = append(out, spec[i])
		}
	}
	return out
}
