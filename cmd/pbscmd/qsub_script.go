package pbscmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// stdinBanner is what qsub prints (on stdout, as OpenPBS does) before
// reading a script typed at the terminal.
const stdinBanner = "Job script will be read from standard input. Submit with CTRL+D.\n"

// readScriptFile reads a job script named on the command line, with
// OpenPBS's messages: perror("qsub: script file:") gives the double colon.
func readScriptFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", failErr(1, "script file:: %s", errnoText(err))
	}
	if !fi.Mode().IsRegular() {
		return "", failErr(1, "script not a file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", failErr(1, "opening script file:: %s", errnoText(err))
	}
	return string(data), nil
}

// readScriptStdin reads a script from stdin.
func readScriptStdin(env *Env) (string, error) {
	if env.StdinIsTerminal != nil && env.StdinIsTerminal() {
		io.WriteString(env.Stdout, stdinBanner)
	}
	data, err := io.ReadAll(env.Stdin)
	if err != nil {
		return "", failErr(1, "cannot read script from standard input: %v", err)
	}
	return string(data), nil
}

// errnoText is strerror(errno) for an os error ("No such file or
// directory"), falling back to the error text.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkScriptText rejects DOS line endings, which make the job's shell fail
// in confusing ways.
func checkScriptText(script string) error {
	if strings.Contains(script, "\r\n") {
		return failErr(1, "script contains cr, lf")
	}
	return nil
}

// directive is one #PBS directive: its text after the prefix (for error
// messages) and its words.
type directive struct {
	Text  string
	Words []string
}

// scanDirectives returns the directives of script, following OpenPBS: a
// directive is a line whose first non-blank text is prefix followed by a
// blank or the end of the line; a line ending in a backslash continues on
// the next line; scanning stops at the first executable line, one that is
// not blank and starts with neither '#' nor ':'. An empty prefix disables
// directives (qsub -C "").
func scanDirectives(script, prefix string) ([]directive, error) {
	if prefix == "" {
		return nil, nil
	}
	lines := strings.Split(script, "\n")
	var out []directive
	for i := 0; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " \t")
		if t == "" || t[0] == ':' {
			continue
		}
		if t[0] != '#' && !strings.HasPrefix(t, prefix) {
			break // first executable line
		}
		if !strings.HasPrefix(t, prefix) {
			continue // comment
		}
		rest := t[len(prefix):]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue // "#PBSfoo" is a comment, not a directive
		}
		for strings.HasSuffix(rest, `\`) && i+1 < len(lines) {
			i++
			rest = rest[:len(rest)-1] + lines[i]
		}
		text := strings.TrimSpace(rest)
		words, err := splitWords(text)
		if err != nil {
			return nil, directiveError(text)
		}
		out = append(out, directive{Text: text, Words: words})
	}
	return out, nil
}

// splitWords splits a directive like a shell does: blanks separate words,
// single quotes keep everything, double quotes keep everything but allow
// \" and \\, and a backslash outside quotes escapes the next character.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unbalanced quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unbalanced quote in %q", s)
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// parseDirectives parses every directive with qsub's option grammar and
// merges them in order (the last occurrence wins within the script). Any
// problem in one directive is a directive error naming its text.
func parseDirectives(ds []directive) (*qsubOpts, error) {
	var merged *qsubOpts
	for _, d := range ds {
		o, split, err := parseQsubWords(d.Words)
		if err != nil || len(split.Operands) > 0 {
			return nil, directiveError(d.Text)
		}
		merged = mergeQsub(merged, o)
	}
	return merged, nil
}
