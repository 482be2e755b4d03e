package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/pbscmd"
)

// pbsCommands are the PBS commands in strata's command tree ("strata
// qsub ..."). Flag parsing is skipped: each command parses its own
// getopt-style words, so "qsub ..." and "strata qsub ..." see exactly the
// same arguments.
func pbsCommands() []*cli.Command {
	var out []*cli.Command
	for _, pc := range pbscmd.Table() {
		run := pc.Run
		out = append(out, &cli.Command{
			Name:            pc.Name,
			Usage:           pc.Usage,
			SkipFlagParsing: true,
			HideHelp:        true,
			Action: func(c *cli.Context) error {
				ctx := c.Context
				if ctx == nil {
					ctx = context.Background()
				}
				if code := run(ctx, pbscmd.OSEnv(), c.Args().Slice()); code != 0 {
					// The command has already printed its diagnostics.
					return cli.Exit("", code)
				}
				return nil
			},
		})
	}
	return out
}
