package simcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestSimulateExpress: on a machine kept full (ten 2-cpu jobs on 2 cpus),
// express jobs preempt; the JSON and text reports show it, and bad flags
// are refused.
func TestSimulateExpress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.swf")
	// Ten 2-cpu jobs of 100 s on a 2-cpu machine, one every 10 s.
	var swf strings.Builder
	swf.WriteString("; MaxNodes: 2\n; MaxProcs: 2\n")
	for i := 1; i <= 10; i++ {
		swf.WriteString(strings.Join([]string{strconv.Itoa(i), strconv.Itoa(10 * (i - 1)), "-1", "100", "2", "-1", "-1", "2", "200", "-1", "1", "1", "1", "1", "1", "1", "-1", "-1"}, " ") + "\n")
	}
	if err := os.WriteFile(path, []byte(swf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		app := &cli.App{Writer: &out, Commands: []*cli.Command{Command()}, ExitErrHandler: func(*cli.Context, error) {}}
		err := app.Run(append([]string{"strata", "simulate", "--trace", path}, args...))
		return out.String(), err
	}
	out, err := run("--express-fraction", "0.3", "-F", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got["express_jobs"].(float64) == 0 || got["preemptions"].(float64) == 0 || got["suspensions"] != got["preemptions"] {
		t.Fatalf("express run: %s", out)
	}
	if out, err = run("--express-fraction", "0.3", "--preempt-order", "R"); err != nil || !strings.Contains(out, "requeued") || !strings.Contains(out, "express jobs:") {
		t.Fatalf("text report: %v\n%s", err, out)
	}
	if _, err := run("--express-fraction", "2"); err == nil {
		t.Fatal("--express-fraction 2 accepted")
	}
	if _, err := run("--express-fraction", "0.3", "--preempt-order", "XY"); err == nil {
		t.Fatal("bad --preempt-order accepted")
	}
}
