package pbscmd

import (
	"fmt"
	"strings"
)

// optSpec is a getopt(3) option string: each option letter, followed by ':'
// when the option takes a value ("a:Bf" = -a VALUE, -B, -f).
type optSpec string

// takesValue reports whether c is an option and whether it has a value.
func (s optSpec) takesValue(c byte) (known, value bool) {
	i := strings.IndexByte(string(s), c)
	if i < 0 || c == ':' {
		return false, false
	}
	return true, i+1 < len(s) && s[i+1] == ':'
}

// getoptArgs is a command line split the getopt way.
type getoptArgs struct {
	// Flags is the options in "-x" / "-x", "value" form, in order.
	Flags []string
	// Operands are the non-option words, in order.
	Operands []string
	// AfterDashDash is the index in Operands of the first word that came
	// after "--", or -1 when there was no "--". qsub needs it to tell
	// `qsub script` from `qsub -- prog args`.
	AfterDashDash int

	spec optSpec // tells which flags carry a value
}

// getoptError is a getopt diagnostic, worded as glibc's.
type getoptError struct {
	Msg string
}

func (e *getoptError) Error() string { return e.Msg }

// normalizeGetopt rewrites PBS getopt syntax into separate words:
// "-lselect=2:ncpus=1" becomes "-l", "select=2:ncpus=1", "-an1" becomes
// "-a", "-n", "-1", "-joe" becomes "-j", "oe": PBS users type attached
// values and grouped letters. Like glibc's getopt, options may follow operands; "--"
// ends the options and a lone "-" is an operand.
func normalizeGetopt(spec optSpec, args []string) (getoptArgs, error) {
	g := getoptArgs{AfterDashDash: -1, spec: spec}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			g.AfterDashDash = len(g.Operands)
			g.Operands = append(g.Operands, args[i+1:]...)
			return g, nil
		}
		if len(a) < 2 || a[0] != '-' {
			g.Operands = append(g.Operands, a)
			continue
		}
		if a[1] == '-' {
			return g, &getoptError{Msg: fmt.Sprintf("unrecognized option '%s'", a)}
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			known, hasValue := spec.takesValue(c)
			if !known {
				return g, &getoptError{Msg: fmt.Sprintf("invalid option -- '%c'", c)}
			}
			if !hasValue {
				g.Flags = append(g.Flags, "-"+string(c))
				continue
			}
			var v string
			if j+1 < len(a) {
				v = a[j+1:]
			} else {
				if i+1 >= len(args) {
					return g, &getoptError{Msg: fmt.Sprintf("option requires an argument -- '%c'", c)}
				}
				i++
				v = args[i]
			}
			g.Flags = append(g.Flags, "-"+string(c), v)
			break
		}
	}
	return g, nil
}
