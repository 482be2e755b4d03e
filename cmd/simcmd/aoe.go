package simcmd

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/scheduler"
	"github.com/strata-hpc/strata/scheduler/sim"
)

// aoeFlags are the provisioning flags of `strata simulate`
// (docs/simulate.md, "AOEs").
func aoeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "aoes", Usage: "jobs ask for one of N AOEs (by trace user, else job number); vnodes start on them in turn"},
		&cli.Int64Flag{Name: "reimage-time", Value: 300, Usage: "seconds a reimage to an OS AOE takes (with --aoes)"},
		&cli.Int64Flag{Name: "app-time", Usage: "seconds an application AOE takes; odd-numbered AOEs are application AOEs when set"},
		&cli.StringFlag{Name: "provision-policy", Value: scheduler.AggressiveProvision, Usage: "aggressive_provision, avoid_provision or lookahead_provision"},
		&cli.IntFlag{Name: "max-concurrent-provision", Value: 5, Usage: "hosts provisioned at once (max_concurrent_provision)"},
	}
}

// aoeOptions reads the provisioning flags.
func aoeOptions(c *cli.Context) (sim.AOEOptions, error) {
	o := sim.AOEOptions{AOEs: c.Int("aoes"), ReimageTime: c.Int64("reimage-time"), AppTime: c.Int64("app-time"),
		ProvisionPolicy: c.String("provision-policy"), MaxConcurrentProvision: c.Int("max-concurrent-provision")}
	switch {
	case o.AOEs < 0:
		return o, fmt.Errorf("--aoes must not be negative")
	case o.AOEs > 0 && o.ReimageTime <= 0:
		return o, fmt.Errorf("--reimage-time must be positive")
	case o.AppTime < 0:
		return o, fmt.Errorf("--app-time must not be negative")
	case o.MaxConcurrentProvision <= 0:
		return o, fmt.Errorf("--max-concurrent-provision must be positive")
	case o.AOEs > 0 && c.IsSet("express-fraction"):
		return o, fmt.Errorf("--aoes and --express-fraction cannot be combined yet")
	}
	switch o.ProvisionPolicy {
	case scheduler.AggressiveProvision, scheduler.AvoidProvision, scheduler.LookaheadProvision:
	default:
		return o, fmt.Errorf("--provision-policy %q: want aggressive_provision, avoid_provision or lookahead_provision", o.ProvisionPolicy)
	}
	return o, nil
}

// writeAOE prints the provisioning figures of a run with AOEs.
func writeAOE(w io.Writer, a *sim.AOEResult) error {
	if a == nil {
		return nil
	}
	_, err := fmt.Fprintf(w, `AOEs:               %d (reimage %d s, app %d s, %s, max_concurrent_provision %d)
reimages:           %d (%d provisioning node-seconds)
provisioned jobs:   %d: average wait %.0f s, bounded slowdown %.2f
ready jobs:         average wait %.0f s, bounded slowdown %.2f
estimate error:     %.0f s mean absolute, over %d jobs estimated at submission
`, a.AOEs, a.ReimageTime, a.AppTime, a.ProvisionPolicy, a.MaxConcurrentProvision,
		a.Reimages, a.ProvisioningNodeSeconds, a.ProvisionedJobs, a.AvgWaitProvisioned, a.AvgBSLDProvisioned,
		a.AvgWaitReady, a.AvgBSLDReady, a.EstimateMAE, a.EstimatedJobs)
	return err
}
