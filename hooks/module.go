package hooks

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pbsModule is the pbs Python module (python/pbs/__init__.py), embedded so
// that the binary is all an installation needs: the runner writes it next
// to the hook scripts before running an application/x-python hook.
//
//go:embed python/pbs/__init__.py
var pbsModule []byte

// PBSModule returns the source of the embedded pbs module.
func PBSModule() []byte { return append([]byte(nil), pbsModule...) }

// moduleDir is where, under a runner's Dir, the pbs package is written;
// it is the hook's PYTHONPATH.
const moduleDir = "pylib"

// writeModule writes the pbs package under dir (which the caller owns
// and nobody else may write: the module runs with the hook's identity) and
// returns the directory to put on PYTHONPATH. An unchanged file is left
// alone; a changed one is replaced by rename, so a hook running meanwhile
// reads either version whole.
func writeModule(dir string) (string, error) {
	lib := filepath.Join(dir, moduleDir)
	pkg := filepath.Join(lib, "pbs")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return "", fmt.Errorf("module directory: %w", err)
	}
	file := filepath.Join(pkg, "__init__.py")
	if cur, err := os.ReadFile(file); err == nil && bytes.Equal(cur, pbsModule) {
		return lib, nil
	}
	tmp, err := os.CreateTemp(pkg, ".init-*")
	if err != nil {
		return "", fmt.Errorf("write module: %w", err)
	}
	_, werr := tmp.Write(pbsModule)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), file)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write module: %w", werr)
	}
	return lib, nil
}

// withoutPython drops the PYTHON* variables (PYTHONPATH, PYTHONSTARTUP,
// PYTHONHOME...) a daemon inherited: the hook gets the runner's module
// path and nothing else decides what `import pbs` loads.
func withoutPython(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, "PYTHON") {
			out = append(out, e)
		}
	}
	return out
}

// MaxLoggedStderr bounds the stderr a log line carries (the whole 64 KiB
// kept would flood the log on a hook that fails at every job).
const MaxLoggedStderr = 4 << 10

// ShouldLog reports whether a run goes to the daemon's log: a failure
// (traceback, malformed output, alarm, cannot run) or a rejection always
// does, whatever debug says; an accepting run only with debug.
func (o *Outcome) ShouldLog(debug bool) bool {
	return debug || o.Failed || !o.Accept
}

// LogLine is the log text of a run: the verdict, message and stderr
// (bounded, quoted so that a hook's output cannot forge log lines).
func (o *Outcome) LogLine(event string) string {
	errText := o.Stderr
	if len(errText) > MaxLoggedStderr {
		errText = errText[:MaxLoggedStderr] + "...(truncated)"
	}
	verdict := "accepted"
	switch {
	case o.Failed:
		verdict = "failed"
	case !o.Accept:
		verdict = "rejected"
	}
	return fmt.Sprintf("%s hook '%s' %s: exit=%d msg=%q stderr=%q", event, o.Hook, verdict, o.Exit, o.Message, errText)
}

// HookLogLines are the pbs.logmsg / pbs.logjobmsg lines of a run, each
// quoted for the same reason as LogLine.
func (o *Outcome) HookLogLines(event string) []string {
	var out []string
	for _, l := range o.Log {
		prefix := fmt.Sprintf("%s hook '%s'", event, o.Hook)
		if l.Job != "" {
			prefix += " job " + l.Job
		}
		out = append(out, prefix+": "+oneLine(l.Msg))
	}
	return out
}

// oneLine escapes control characters (newlines above all) so that one
// message stays one log line.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}
