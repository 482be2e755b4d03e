package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// TestHelpListsEveryCommand: `strata --help` names every command a user or
// an admin runs; only the agent's internal re-exec (mom-shepherd) is left
// out.
func TestHelpListsEveryCommand(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	code := run([]string{"strata", "--help"})
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if code != 0 {
		t.Fatalf("strata --help exited %d", code)
	}
	for _, c := range allCommands() {
		listed := strings.Contains(string(out), "\n   "+c.Name+" ")
		if c.Name == "mom-shepherd" {
			if listed {
				t.Error("the internal mom-shepherd is listed")
			}
			continue
		}
		if !listed {
			t.Errorf("strata --help does not list %s:\n%s", c.Name, out)
		}
	}
}
