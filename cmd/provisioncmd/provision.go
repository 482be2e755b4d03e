// Package provisioncmd is `strata provision`: provisioning insight.
package provisioncmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/server/api"
)

// Command returns `strata provision`. connect opens the client for a
// server name (the multi-call binary passes the PBS commands' connection,
// so this package does not depend on its sibling cmd/pbscmd).
func Command(connect func(name string) *api.Client) *cli.Command {
	return &cli.Command{
		Name:  "provision",
		Usage: "AOE provisioning insight",
		Subcommands: []*cli.Command{{
			Name:  "status",
			Usage: "operations (running, waiting), per-AOE estimates, waits and failures, suggested max_concurrent_provision",
			Flags: []cli.Flag{&cli.StringFlag{Name: "F", Usage: "output format: json"}},
			Action: func(c *cli.Context) error {
				name := os.Getenv("PBS_SERVER")
				client := connect(name)
				st, err := client.ProvisionStatus(c.Context)
				if err != nil {
					return cli.Exit("strata provision: "+err.Error(), 1)
				}
				if c.String("F") == "json" {
					enc := json.NewEncoder(c.App.Writer)
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				Print(c.App.Writer, st, time.Now().Unix())
				return nil
			},
		}},
	}
}

// Print writes the status as text.
func Print(w io.Writer, st *api.ProvisionStatus, now int64) {
	hook := "none (provisioning disabled)"
	if st.Enabled {
		hook = st.Hook + " (" + st.Mode + " mode)"
	}
	fmt.Fprintf(w, "provision hook: %s\n", hook)
	fmt.Fprintf(w, "max_concurrent_provision: %d (running %d, waiting %d)\n", st.MaxConcurrent, st.Running, st.Waiting)
	fmt.Fprintf(w, "suggested max_concurrent_provision: %d (%s)\n", st.Suggested, st.SuggestedWhy)
	if len(st.Ops) > 0 {
		fmt.Fprintln(w, "\noperations:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "HOST\tAOE\tSTATE\tJOB\tATTEMPT\tAGE\tVNODES")
		for _, op := range st.Ops {
			age := now - op.Queued
			if op.Started > 0 {
				age = now - op.Started
			}
			job := op.JobID
			if job == "" {
				job = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%ds\t%s\n", op.Host, op.AOE, op.State, job, op.Attempt, age, strings.Join(op.Vnodes, ","))
		}
		tw.Flush()
	}
	if len(st.PerAOE) > 0 {
		fmt.Fprintln(w, "\nper AOE:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "AOE\tESTIMATE\tLEARNED\tSUCCESSES\tFAILURES\tMEAN WAIT")
		for _, a := range st.PerAOE {
			fmt.Fprintf(tw, "%s\t%ds\t%v\t%d\t%d\t%ds\n", a.AOE, a.EstimateSecs, a.Learned, a.Successes, a.Failures, a.MeanWaitSecs)
		}
		tw.Flush()
	}
	if len(st.Stats) > 0 {
		fmt.Fprintln(w, "\nper host:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "HOST\tAOE\tMEAN\tLAST\tSUCCESSES\tFAILURES")
		for _, s := range st.Stats {
			fmt.Fprintf(tw, "%s\t%s\t%ds\t%ds\t%d\t%d\n", s.Host, s.AOE, s.MeanSecs, s.LastSecs, s.Successes, s.Failures)
		}
		tw.Flush()
	}
}
