package simcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestOptions(t *testing.T) {
	cases := []struct {
		window, policy, est string
		procs               int
		bad                 string
	}{
		{window: "10:20", policy: "easy", est: "user"},
		{policy: "strata", est: "exact", procs: 64},
		{window: "10", policy: "easy", est: "user", bad: "--window"},
		{policy: "sjf", est: "user", bad: "unknown policy"},
		{policy: "easy", est: "guess", bad: "--estimates"},
	}
	for _, tc := range cases {
		_, err := options(tc.window, tc.procs, tc.policy, tc.est)
		if tc.bad == "" && err != nil || tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
}

func TestSimulateJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.swf")
	swf := "; MaxNodes: 2\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 1 1 1 -1 -1\n2 0 -1 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n"
	if err := os.WriteFile(path, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	app := &cli.App{Writer: &out, Commands: []*cli.Command{Command()}}
	if err := app.Run([]string{"strata", "simulate", "--trace", path, "--policy", "fcfs", "-F", "json"}); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// Job 2 waits 10 s for job 1: average wait 5, makespan 20.
	if got["avg_wait"] != 5.0 || got["makespan"] != 20.0 || got["jobs"] != 2.0 {
		t.Fatalf("got %s", out.String())
	}
}
