package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/pbscmd"
	"github.com/strata-hpc/strata/server/api"
)

// The manual pages and the bash completion are generated from the command
// definitions (`make install` runs these), so they cannot drift from what
// the commands accept: the PBS commands' pages from pbscmd.Manuals (whose
// options are held equal to the getopt specs the commands parse with), and
// strata(8) from the urfave/cli definitions that `strata CMD --help` prints.

// genManCommand is `strata gen-man DIR`.
func genManCommand() *cli.Command {
	return &cli.Command{
		Name:      "gen-man",
		Usage:     "write the manual pages of every command under DIR/manN (make install runs it)",
		ArgsUsage: "DIR",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("usage: strata gen-man DIR", 2)
			}
			files, err := writeManPages(c.Args().First())
			if err != nil {
				return cli.Exit("strata gen-man: "+err.Error(), 1)
			}
			for _, f := range files {
				fmt.Fprintln(c.App.Writer, f)
			}
			return nil
		},
	}
}

// genCompletionCommand is `strata gen-completion`: the bash completion
// script on stdout.
func genCompletionCommand() *cli.Command {
	return &cli.Command{
		Name:  "gen-completion",
		Usage: "print the bash completion script of strata and the PBS commands (make install runs it)",
		Action: func(c *cli.Context) error {
			_, err := io.WriteString(c.App.Writer, bashCompletion())
			return err
		},
	}
}

// writeManPages writes every page under dir and returns the files written.
func writeManPages(dir string) ([]string, error) {
	pages := map[string]string{}
	for _, m := range pbscmd.Manuals() {
		pages[filepath.Join(fmt.Sprintf("man%d", m.Section), fmt.Sprintf("%s.%d", m.Name, m.Section))] = pbsManPage(m)
	}
	page, err := strataManPage()
	if err != nil {
		return nil, err
	}
	pages[filepath.Join("man8", "strata.8")] = page
	var files []string
	for name := range pages {
		files = append(files, name)
	}
	sort.Strings(files)
	for i, name := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, []byte(pages[name]), 0o644); err != nil {
			return nil, err
		}
		files[i] = path
	}
	return files, nil
}

// daemonCommands are the strata subcommands documented in strata(8): the
// ones that are not PBS commands (those have pages of their own).
func daemonCommands() []*cli.Command {
	pbs := map[string]bool{}
	for _, m := range pbscmd.Manuals() {
		pbs[m.Name] = true
	}
	var out []*cli.Command
	for _, c := range allCommands() {
		if !pbs[c.Name] && !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// strataManPage renders strata(8) from the same urfave/cli definitions as
// --help, with the roff writer of the PBS pages (urfave's ToMan would pull
// a markdown renderer into every process of the multi-call binary; the
// build leaves it out with urfave_cli_no_docs).
func strataManPage() (string, error) {
	var names []string
	for _, m := range pbscmd.Manuals() {
		names = append(names, fmt.Sprintf("%s(%d)", m.Name, m.Section))
	}
	var b strings.Builder
	fmt.Fprintf(&b, ".TH STRATA 8 \"\" \"Strata %s\" \"Strata administration\"\n", roffEscape(api.PBSVersion))
	b.WriteString(".SH NAME\nstrata \\- a PBS\\-compatible batch scheduler with AOE provisioning\n")
	b.WriteString(".SH SYNOPSIS\n.B strata\n[\\fB\\-\\-version\\fP] \\fIcommand\\fP [\\fIoptions\\fP]\n")
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(roffLine("strata is one binary: the server, the node agent (mom), the cluster PKI, operator tools, "+
		"the local-cluster tool and every PBS command (strata qsub ...). "+
		"The PBS command links (qsub, qstat, ...) point to strata-pbs, the same commands alone in a small static binary that starts faster; "+
		"strata-pbs COMMAND ... runs one too. "+
		"Run under systemd (JOURNAL_STREAM set), strata server and strata mom log to the journal with priorities and without timestamps. "+
		"See also "+strings.Join(names, ", ")+", and docs/deploy.md.") + "\n")
	b.WriteString(".SH GLOBAL OPTIONS\n.TP\n\\fB\\-\\-version\\fP, \\fB\\-v\\fP\nprint the version\n")
	b.WriteString(".SH COMMANDS\n")
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			name := strings.TrimSpace(prefix + " " + c.Name)
			fmt.Fprintf(&b, ".SS %s\n%s\n", roffEscape(name), roffLine(c.Usage))
			for _, f := range c.Flags {
				fmt.Fprintf(&b, ".TP\n%s\n%s\n", roffFlag(f), roffLine(flagUsage(f)))
			}
			walk(name, c.Subcommands)
		}
	}
	walk("", daemonCommands())
	return b.String(), nil
}

// roffFlag is a flag's names in bold, "\fB--name\fP, \fB-n\fP".
func roffFlag(f cli.Flag) string {
	var parts []string
	for _, n := range f.Names() {
		dash := "--"
		if len(n) == 1 {
			dash = "-"
		}
		parts = append(parts, `\fB`+roffEscape(dash+n)+`\fP`)
	}
	return strings.Join(parts, ", ")
}

// flagUsage is a flag's help text.
func flagUsage(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

// pbsManPage renders one PBS command's page in roff.
func pbsManPage(m pbscmd.Manual) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s %d \"\" \"Strata %s\" \"Strata PBS commands\"\n", strings.ToUpper(m.Name), m.Section, roffEscape(api.PBSVersion))
	b.WriteString(".SH NAME\n")
	usage := ""
	if c, ok := pbscmd.Lookup(m.Name); ok {
		usage = c.Usage
	}
	fmt.Fprintf(&b, "%s \\- %s\n", roffEscape(m.Name), roffEscape(usage))
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	syn := strings.TrimSpace(m.Synopsis)
	syn = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(syn, "usage:"), "Usage:"))
	for _, line := range strings.Split(syn, "\n") {
		b.WriteString(roffLine(strings.TrimSpace(line)) + "\n")
	}
	b.WriteString(".fi\n.SH DESCRIPTION\n")
	b.WriteString(roffLine(m.Description) + "\n")
	if len(m.Options) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, o := range m.Options {
			b.WriteString(".TP\n")
			if o.Arg != "" {
				fmt.Fprintf(&b, ".BI \\-%c \" %s\"\n", o.Letter, roffEscape(o.Arg))
			} else {
				fmt.Fprintf(&b, ".B \\-%c\n", o.Letter)
			}
			text := o.Text
			if strings.IndexByte(m.Unsupported, o.Letter) >= 0 {
				text += " Not supported in this release: the command refuses it."
			}
			b.WriteString(roffLine(text) + "\n")
		}
	}
	b.WriteString(".TP\n.B \\-\\-version\nPrint the PBS version and exit.\n")
	b.WriteString(".SH ENVIRONMENT\n.TP\n.B PBS_SERVER\nThe server name; short job ids (123) are completed with it.\n")
	b.WriteString(".TP\n.B STRATA_SOCKET\nThe server's Unix socket (default /var/run/strata/strata.sock).\n")
	b.WriteString(".SH SEE ALSO\n.BR strata (8)\n")
	return b.String()
}

// roffEscape escapes backslashes and hyphens for roff.
func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	return strings.ReplaceAll(s, "-", `\-`)
}

// roffLine escapes s and keeps a leading dot or quote from being read as
// a request.
func roffLine(s string) string {
	s = roffEscape(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
