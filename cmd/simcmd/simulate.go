// Package simcmd is `strata simulate`: replay a Standard Workload Format
// trace through the real scheduler in virtual time and print the classic
// metrics (docs/simulate.md).
package simcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/scheduler/sim"
	"github.com/strata-hpc/strata/server/schedglue"
)

// Command returns `strata simulate`.
func Command() *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "replay an SWF workload trace through the scheduler in virtual time",
		UsageText: "strata simulate --trace FILE.swf[.gz] [--window START:COUNT] [--procs N] [--policy fcfs|easy|conservative|strata] [--estimates user|exact] [--state-machine] [--fairshare [--share-tree FILE] [--fairshare-entity euser|egroup]] [--per-group] [--express-fraction F [--preempt-order SCR]] [--aoes N --reimage-time S [--app-time S] [--provision-policy P] [--max-concurrent-provision K]] [-F json]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "trace", Required: true, Usage: "SWF file (.gz is read compressed)"},
			&cli.StringFlag{Name: "window", Usage: "simulate jobs START..START+COUNT-1 of the trace (after dropped records)"},
			&cli.IntFlag{Name: "procs", Usage: "machine size in processors (default: the header's MaxProcs)"},
			&cli.StringFlag{Name: "policy", Value: sim.PolicyStrata, Usage: "fcfs, easy, conservative or strata"},
			&cli.StringFlag{Name: "estimates", Value: "user", Usage: "walltime: user (the trace's request) or exact (the run time)"},
			&cli.StringFlag{Name: "F", Usage: "output format: json"},
			&cli.BoolFlag{Name: "fairshare", Usage: "order jobs by fair_share over a share tree (the trace's groups and users, or --share-tree); implies --per-group"},
			&cli.StringFlag{Name: "share-tree", Usage: "resource_group file for --fairshare (name id parent shares; users u<uid>, groups g<gid>)"},
			&cli.StringFlag{Name: "fairshare-entity", Value: "euser", Usage: "euser or egroup"},
			&cli.StringFlag{Name: "fairshare-decay", Value: "86400:0.5", Usage: "fairshare_decay_time:fairshare_decay_factor"},
			&cli.BoolFlag{Name: "per-group", Usage: "report wait and slowdown per user and per group, and the spread between groups"},
			&cli.BoolFlag{Name: "state-machine", Usage: "keep the state in the server's state machine and apply every cycle as the leader commits it (about 3x slower; same results)"},
		}, append(expressFlags(), aoeFlags()...)...), // preemption (express.go), provisioning (aoe.go)
		Action: func(c *cli.Context) error {
			opt, err := options(c.String("window"), c.Int("procs"), c.String("policy"), c.String("estimates"))
			if err != nil {
				return cli.Exit("strata simulate: "+err.Error(), 2)
			}
			if opt.AOE, err = aoeOptions(c); err != nil {
				return cli.Exit("strata simulate: "+err.Error(), 2)
			}
			if err := fairshareOptions(c, &opt); err != nil { // fairshare.go
				return cli.Exit("strata simulate: "+err.Error(), 2)
			}
			tr, err := sim.ReadFile(c.String("trace"))
			if err != nil {
				return cli.Exit("strata simulate: "+err.Error(), 1)
			}
			// A simulation allocates many short-lived plans; trading memory
			// for fewer collections makes it about a quarter faster.
			debug.SetGCPercent(400)
			if c.IsSet("express-fraction") { // preemption hook point (express.go)
				return runExpress(c, tr, opt)
			}
			var books sim.NewBooks // nil: the simulator's own
			if c.Bool("state-machine") {
				books = schedglue.SimBooks
			}
			res, err := sim.RunWith(tr, opt, books)
			if err != nil {
				return cli.Exit("strata simulate: "+err.Error(), 1)
			}
			return write(c.App.Writer, c.String("trace"), res, c.String("F"))
		},
	}
}

func options(window string, procs int, policy, estimates string) (sim.Options, error) {
	opt := sim.Options{Procs: procs, Policy: policy}
	if _, err := sim.Config(policy); err != nil {
		return opt, err
	}
	switch estimates {
	case "user":
	case "exact":
		opt.Exact = true
	default:
		return opt, fmt.Errorf("--estimates %q: want user or exact", estimates)
	}
	if window != "" {
		a, b, ok := strings.Cut(window, ":")
		start, err1 := strconv.Atoi(a)
		count, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || start < 0 || count < 0 {
			return opt, fmt.Errorf("--window %q: want START:COUNT", window)
		}
		opt.Start, opt.Count = start, count
	}
	if procs < 0 {
		return opt, fmt.Errorf("--procs must be positive")
	}
	return opt, nil
}

// writeJSON writes v as indented JSON when format is "json" and reports
// that it handled the format (an unknown format is an error).
func writeJSON(w io.Writer, format string, v any) (bool, error) {
	switch format {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return true, err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return true, err
	case "":
		return false, nil
	}
	return true, cli.Exit(fmt.Sprintf("strata simulate: unknown format %q (want json)", format), 2)
}

func write(w io.Writer, trace string, r sim.Result, format string) error {
	if done, err := writeJSON(w, format, struct {
		Trace string `json:"trace"`
		sim.Result
	}{trace, r}); done {
		return err
	}
	_, err := fmt.Fprintf(w, `trace:              %s
policy:             %s (walltime estimates: %s)
machine:            %d nodes x %d procs = %d procs
jobs:               %d (%d capped at walltime, %d larger than the machine dropped)
average wait:       %.0f s
average bounded slowdown (10 s): %.2f
utilization:        %.2f%%
makespan:           %d s
cycles:             %d
`, trace, r.Policy, r.Estimates, r.Nodes, r.PPN, r.Procs, r.Jobs, r.Capped, r.TooLarge,
		r.AvgWait, r.AvgBSLD, 100*r.Util, r.Makespan, r.Cycles)
	if err == nil && r.Fairness != nil {
		err = writeFairness(w, r) // fairshare.go
	}
	if err != nil {
		return err
	}
	return writeAOE(w, r.AOEResult)
}
