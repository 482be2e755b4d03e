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

// TestSimulateAOEs: `strata simulate --aoes` adds the provisioning figures
// to -F json and to the text output; without --aoes they are absent; bad
// values are refused with exit status 2 and a usage message.
func TestSimulateAOEs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.swf")
	// Two nodes (n00000 on aoe0, n00001 on aoe1); job 1 of user 1 (aoe1)
	// takes both, so n00000 is reimaged (30 s); job 2 of user 2 (aoe0)
	// runs after it on n00000, now on aoe1: reimaged again.
	swf := "; MaxNodes: 2\n1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 1 1 1 -1 -1\n2 0 -1 10 1 -1 -1 1 20 -1 1 2 1 1 1 1 -1 -1\n"
	if err := os.WriteFile(path, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		app := &cli.App{Writer: &out, ErrWriter: &out, ExitErrHandler: func(*cli.Context, error) {},
			Commands: []*cli.Command{Command()}}
		err := app.Run(append([]string{"strata", "simulate", "--trace", path, "--policy", "fcfs"}, args...))
		return out.String(), err
	}
	out, err := run("--aoes", "2", "--reimage-time", "30", "--provision-policy", "lookahead_provision", "-F", "json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Job 1 starts at 30 (wait 30), job 2 at 40 + 30 = 70 (wait 70).
	if got["reimages"] != 2.0 || got["provisioning_node_seconds"] != 60.0 || got["avg_wait"] != 50.0 ||
		got["provisioned_jobs"] != 2.0 || got["provision_policy"] != "lookahead_provision" || got["avg_wait_provisioned"] != 50.0 {
		t.Fatalf("got %s", out)
	}
	if out, err = run("--aoes", "2", "--reimage-time", "30"); err != nil || !strings.Contains(out, "reimages:           2 (60 provisioning node-seconds)") {
		t.Fatalf("text: %v\n%s", err, out)
	}
	if out, err = run("-F", "json"); err != nil || strings.Contains(out, "reimages") {
		t.Fatalf("without --aoes: %v\n%s", err, out)
	}
	for _, bad := range [][]string{
		{"--aoes", "2", "--provision-policy", "sometimes"},
		{"--aoes", "2", "--reimage-time", "0"},
		{"--aoes", "-1"},
		{"--aoes", "2", "--max-concurrent-provision", "0"},
	} {
		_, err := run(bad...)
		if ec, ok := err.(cli.ExitCoder); !ok || ec.ExitCode() != 2 {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
