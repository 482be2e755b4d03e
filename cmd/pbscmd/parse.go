package pbscmd

import (
	"fmt"
	"io"
	"strings"
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

// flagName is the name commands look an option letter up by (c.String,
// c.Bool, ...). The letter itself, except h: urfave/cli, which parsed
// these lines before, took a flag named "h" for help, so qsub's -h (hold)
// was registered as "h-opt", and the commands still ask for that name.
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
// spec, handing fn the options and the getopt split. Getopt diagnostics
// come back as *getoptError. repeatable names the letters whose every
// value is kept (StringSlice); for the others the last value wins.
//
// The options are read straight from the getopt split. They used to go
// through a urfave/cli App, which looked every flag up by running a
// regexp over every flag name (about 900 regexp calls for one qsub, a
// tenth of its process's CPU) for the same result.
func parseOptions(cmd string, spec optSpec, repeatable string, args []string, fn func(*options, getoptArgs) error) error {
	g, err := normalizeGetopt(spec, args)
	if err != nil {
		return err
	}
	return fn(newOptions(g, repeatable), g)
}

// options is a parsed command line, looked up by flagName.
type options struct {
	vals map[string][]string // every value of an option, in order
	set  map[string]bool
}

func newOptions(g getoptArgs, repeatable string) *options {
	o := &options{vals: map[string][]string{}, set: map[string]bool{}}
	for i := 0; i < len(g.Flags); i++ {
		c := g.Flags[i][1]
		name := flagName(c)
		o.set[name] = true
		if _, hasValue := g.spec.takesValue(c); !hasValue || i+1 >= len(g.Flags) {
			continue
		}
		i++
		v := g.Flags[i]
		if containsByte(repeatable, c) {
			// Values of repeatable options were trimmed (urfave's
			// StringSlice did it); a single value never was.
			o.vals[name] = append(o.vals[name], strings.TrimSpace(v))
		} else {
			o.vals[name] = []string{v}
		}
	}
	return o
}

// IsSet reports whether the option was given.
func (o *options) IsSet(name string) bool { return o.set[name] }

// Bool reports whether a flag without a value was given.
func (o *options) Bool(name string) bool { return o.set[name] }

// String is the option's value ("" when absent; the last one when given
// more than once).
func (o *options) String(name string) string {
	v := o.vals[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// StringSlice is every value of a repeatable option (nil when absent).
func (o *options) StringSlice(name string) []string {
	return append([]string(nil), o.vals[name]...)
}

// presentFlags lists, in spec order, the option letters set in c.
func presentFlags(c *options, spec optSpec) []byte {
	var out []byte
	for i := 0; i < len(spec); i++ {
		if spec[i] != ':' && c.IsSet(flagName(spec[i])) {
			out = append(out, spec[i])
		}
	}
	return out
}
