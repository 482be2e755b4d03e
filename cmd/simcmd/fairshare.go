package simcmd

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/scheduler/sim"
)

// fairshareOptions reads --fairshare, --share-tree, --fairshare-entity,
// --fairshare-decay and --per-group.
func fairshareOptions(c *cli.Context, opt *sim.Options) error {
	opt.PerGroup = c.Bool("per-group")
	if !c.Bool("fairshare") {
		if c.IsSet("share-tree") || c.IsSet("fairshare-entity") || c.IsSet("fairshare-decay") {
			return fmt.Errorf("--share-tree, --fairshare-entity and --fairshare-decay need --fairshare")
		}
		return nil
	}
	if c.Bool("state-machine") {
		return fmt.Errorf("--fairshare runs with the simulator's own books only (not --state-machine)")
	}
	fo := &sim.FairshareOptions{Entity: c.String("fairshare-entity")}
	if fo.Entity != model.FairshareEuser && fo.Entity != model.FairshareEgroup {
		return fmt.Errorf("--fairshare-entity %q: want euser or egroup", fo.Entity)
	}
	t, f, ok := strings.Cut(c.String("fairshare-decay"), ":")
	secs, err1 := strconv.ParseInt(t, 10, 64)
	factor, err2 := strconv.ParseFloat(f, 64)
	if !ok || err1 != nil || err2 != nil || secs <= 0 || !(factor > 0 && factor < 1) {
		return fmt.Errorf("--fairshare-decay %q: want SECONDS:FACTOR with 0 < FACTOR < 1", c.String("fairshare-decay"))
	}
	fo.DecayTime, fo.DecayFactor = secs, factor
	if path := c.String("share-tree"); path != "" {
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		nodes, err := model.ParseResourceGroupFile(string(text))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, n := range nodes {
			fo.Tree = append(fo.Tree, n.String())
		}
	}
	opt.Fairshare = fo
	return nil
}

// writeFairness prints the per-group table (all groups), the ten busiest
// users and the spread between groups.
func writeFairness(w io.Writer, r sim.Result) error {
	f := r.Fairness
	state := "off"
	if r.Fairshare {
		state = "on"
	}
	fmt.Fprintf(w, "fair_share:         %s\n", state)
	fmt.Fprintf(w, "group spread (%d groups with >= %d jobs): wait %.0f..%.0f s (stddev %.0f), bounded slowdown %.2f..%.2f (stddev %.2f)\n",
		f.Counted, f.MinJobs, f.WaitMin, f.WaitMax, f.WaitStd, f.BSLDMin, f.BSLDMax, f.BSLDStd)
	fmt.Fprintf(w, "busiest group's share of the work: %.1f%%\n", 100*f.TopShare)
	table := func(title string, gs []sim.GroupStat, limit int) {
		fmt.Fprintf(w, "%-10s %6s %12s %10s %14s\n", title, "jobs", "avg wait", "avg bsld", "cpu-hours")
		for i, g := range gs {
			if limit > 0 && i == limit {
				fmt.Fprintf(w, "... %d more\n", len(gs)-limit)
				break
			}
			fmt.Fprintf(w, "%-10s %6d %12.0f %10.2f %14.1f\n", g.Name, g.Jobs, g.AvgWait, g.AvgBSLD, g.CPUSeconds/3600)
		}
	}
	table("group", f.Groups, 0)
	table("user", f.Users, 10)
	return nil
}
