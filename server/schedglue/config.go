package schedglue

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/scheduler"
)

// Config maps the replicated sched object (and node_sort_key) to the
// scheduler's policy. Bad keys were rejected when they were set; should one
// get here anyway it is left out rather than failing every cycle. The
// default walltime is resources_default.walltime.
func Config(cfg *model.ServerConfig) scheduler.Config {
	keys, err := policy.ParseNodeSortKeys(cfg.NodeSortKeys)
	if err != nil {
		keys = policy.DefaultNodeSortKeys()
	}
	sc := cfg.Sched
	out := scheduler.Config{
		NodeSortKeys:   keys,
		ByQueue:        sc.ByQueue,
		RoundRobin:     sc.RoundRobin,
		StrictOrdering: sc.StrictOrdering,
		BackfillDepth:  int(sc.BackfillDepth),
	}
	if jk, err := policy.ParseJobSortKeys(sc.JobSortKeys, cfg.Defs); err == nil {
		out.JobSortKeys = jk
	}
	if sc.JobSortFormula != "" {
		if f, err := policy.ParseFormula(sc.JobSortFormula); err == nil {
			out.JobSortFormula = f
			out.FormulaThreshold = sc.JobSortFormulaThreshold
		}
	}
	out.DefaultWalltime = defaultWalltime(cfg.ResourcesDefault)
	out.Preempt = PreemptPolicy(&sc) // preemption hook point (preempt.go)
	out.Psets = scheduler.PsetConfig{Enable: cfg.NodeGroupEnable, Keys: cfg.NodeGroupKey,
		DoNotSpan: sc.DoNotSpanPsets, OnlyExplicit: sc.OnlyExplicitPsets}
	return out
}

// defaultWalltime is resources_default.walltime in seconds (of the server
// or a queue), 0 when unset or unparsable (the scheduler then falls back
// to the next level, see scheduler.Queue.DefaultWalltime).
func defaultWalltime(defaults map[string]string) int64 {
	if w, ok := defaults["walltime"]; ok {
		if secs, err := model.ParseDuration(w); err == nil && secs > 0 {
			return secs
		}
	}
	return 0
}
