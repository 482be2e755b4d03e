package simcmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/scheduler/sim"
)

// The express stream of strata simulate (docs/simulate.md, "Preemption"):
// --express-fraction F submits that fraction of the trace's jobs to an
// express queue that preempts the others with --preempt-order.

func expressFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "express-fraction", Usage: "submit this fraction (0..1) of the jobs to an express queue that preempts the others"},
		&cli.StringFlag{Name: "preempt-order", Value: "SCR", Usage: "preempt_order of the express run (S suspend, C/R requeue, D delete)"},
	}
}

// runExpress simulates with an express stream and writes its report.
func runExpress(c *cli.Context, tr *sim.Trace, opt sim.Options) error {
	f := c.Float64("express-fraction")
	if f < 0 || f > 1 {
		return cli.Exit("strata simulate: --express-fraction must be between 0 and 1", 2)
	}
	if opt.Fairshare != nil || opt.PerGroup {
		return cli.Exit("strata simulate: --express-fraction does not combine with --fairshare or --per-group yet", 2)
	}
	if c.Bool("state-machine") {
		return cli.Exit("strata simulate: --express-fraction runs on the simulator's own books only", 2)
	}
	res, err := sim.RunExpress(tr, opt, sim.ExpressOptions{Fraction: f, Order: c.String("preempt-order")})
	if err != nil {
		return cli.Exit("strata simulate: "+err.Error(), 1)
	}
	return writeExpress(c.App.Writer, c.String("trace"), res, c.String("F"))
}

func writeExpress(w io.Writer, trace string, r sim.ExpressResult, format string) error {
	if done, err := writeJSON(w, format, struct {
		Trace string `json:"trace"`
		sim.ExpressResult
	}{trace, r}); done {
		return err
	}
	if err := write(w, trace, r.Result, ""); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `express jobs:       %d (average wait %.0f s; other jobs %.0f s)
preemptions:        %d (%d suspended, %d requeued, %d deleted; %d resumed)
lost work:          %.0f proc-s
`, r.ExpressJobs, r.ExpressAvgWait, r.NormalAvgWait, r.Preemptions, r.Suspensions, r.Requeues, r.Deletions, r.Resumes, r.LostWork)
	return err
}
