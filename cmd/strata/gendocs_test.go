package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/pbscmd"
)

// TestManPagesListTheCommandsOptions generates the pages as make install
// does and reads the options back out of the roff: each PBS page lists
// exactly the options of its command (pbscmd's tests hold those to what
// the command accepts), and strata(8) every flag of every daemon command.
func TestManPagesListTheCommandsOptions(t *testing.T) {
	dir := t.TempDir()
	if _, err := writeManPages(dir); err != nil {
		t.Fatal(err)
	}
	optLine := regexp.MustCompile(`(?m)^\.BI? \\-([^\\\s])`)
	for _, m := range pbscmd.Manuals() {
		page := readPage(t, dir, m.Name, m.Section)
		var got []string
		for _, sm := range optLine.FindAllStringSubmatch(page, -1) {
			got = append(got, sm[1])
		}
		want := strings.Split(pbscmd.Letters(m.Spec), "")
		if strings.Join(got, "") != strings.Join(want, "") {
			t.Errorf("%s(%d) lists options %q, the command has %q", m.Name, m.Section, got, want)
		}
		if !strings.Contains(page, ".SH SYNOPSIS") || !strings.HasPrefix(page, ".TH "+strings.ToUpper(m.Name)) {
			t.Errorf("%s(%d): no title or synopsis:\n%s", m.Name, m.Section, page)
		}
	}

	page := readPage(t, dir, "strata", 8)
	// Each flag entry is "\fB\-\-name\fP, \fB\-n\fP" (roff-escaped
	// dashes); read the entries back, every name of each.
	entries := map[string]bool{}
	for _, sm := range regexp.MustCompile(`\\fB((?:\\-){1,2}[A-Za-z][A-Za-z0-9\\-]*)\\fP`).FindAllStringSubmatch(page, -1) {
		entries[strings.TrimLeft(strings.ReplaceAll(sm[1], `\-`, "-"), "-")] = true
	}
	flags := map[string]bool{}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			for _, f := range c.Flags {
				for _, n := range f.Names() {
					flags[n] = true
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(daemonCommands())
	flags["version"], flags["v"] = true, true // the app's own
	var missing, extra []string
	for f := range flags {
		if !entries[f] {
			missing = append(missing, f)
		}
	}
	for f := range entries {
		if !flags[f] {
			extra = append(extra, f)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 || len(flags) < 10 {
		t.Errorf("strata(8) lacks flags %v and has flags %v that no command has (%d flags)", missing, extra, len(flags))
	}
}

func readPage(t *testing.T, dir, name string, section int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "man"+string(rune('0'+section)), name+"."+string(rune('0'+section))))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
