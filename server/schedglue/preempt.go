package schedglue

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// PreemptPolicy maps preemptive_sched and the preempt_* settings to the
// scheduler's policy: nil when preemption is off. Values were checked when
// set; one that no longer parses falls back to OpenPBS's default rather
// than failing every cycle.
func PreemptPolicy(sc *model.SchedConfig) *scheduler.PreemptPolicy {
	pc := &sc.Preempt
	if pc.Off {
		return nil
	}
	prio, err := policy.ParsePreemptPrio(pc.EffectivePrio())
	if err != nil {
		prio, _ = policy.ParsePreemptPrio(model.DefaultPreemptPrio)
	}
	order, err := policy.ParsePreemptOrder(pc.EffectiveOrder())
	if err != nil {
		order, _ = policy.ParsePreemptOrder(model.DefaultPreemptOrder)
	}
	p := &scheduler.PreemptPolicy{Prio: prio, Order: order, QueuePrio: int(pc.EffectiveQueuePrio())}
	for _, l := range prio.Levels {
		if l&policy.BitStarving != 0 {
			p.MaxStarve = pc.EffectiveMaxStarve() // only looked at when listed
		}
	}
	return p
}

// SoftLimitClasses marks the running jobs of every user, group or project
// (and queue, or the whole server) that runs more jobs than its
// max_run_soft allows: all of that entity's jobs are then over their soft
// limit, as OpenPBS counts it, and preempt_prio's queue_softlimits or
// server_softlimits lowers their preemption priority. Soft limits never
// keep a job from running.
func SoftLimitClasses(cfg *model.ServerConfig, running []*model.Job) map[string]policy.PreemptClass {
	srv, _ := model.ParseLimits(cfg.MaxRunSoft)
	queues := map[string][]model.Limit{}
	for name, q := range cfg.Queues {
		if ql, _ := model.ParseLimits(q.MaxRunSoft); len(ql) > 0 {
			queues[name] = ql
		}
	}
	if len(srv) == 0 && len(queues) == 0 {
		return nil
	}
	type ent struct {
		queue string // "" for the server's counts
		kind  byte
		who   string
	}
	entities := func(j *model.Job, queue string) []ent {
		return []ent{{queue, 'o', "PBS_ALL"}, {queue, 'u', j.User}, {queue, 'g', j.Group}, {queue, 'p', j.Project}}
	}
	counts := map[ent]int64{}
	var live []*model.Job
	for _, j := range running {
		if j.State != model.StateRunning {
			continue // a suspended or exiting job runs nothing
		}
		live = append(live, j)
		for _, e := range entities(j, "") {
			counts[e]++
		}
		for _, e := range entities(j, j.Queue) {
			counts[e]++
		}
	}
	over := func(ls []model.Limit, j *model.Job, queue string) bool {
		for _, e := range entities(j, queue) {
			if lim, ok := model.LimitFor(ls, e.kind, e.who); ok && counts[e] > lim {
				return true
			}
		}
		return false
	}
	out := map[string]policy.PreemptClass{}
	for _, j := range live {
		var set policy.PreemptClass
		if over(srv, j, "") {
			set |= policy.BitServerSoft
		}
		if over(queues[j.Queue], j, j.Queue) {
			set |= policy.BitQueueSoft
		}
		if set != 0 {
			out[j.ID] = set
		}
	}
	return out
}

// FairshareClasses adds preempt_prio's fairshare class to classes: the
// jobs (running and queued) of every entity that has used more than its
// share of the machine (fairshare_tree_usage above fair_share_perc, over
// the share tree and the replicated usage). Only computed when
// preemption is on, a share tree is set and preempt_prio names the class.
func FairshareClasses(cfg *model.ServerConfig, snap *raftstore.StateSnapshot, p *scheduler.PreemptPolicy,
	running, queued []*model.Job, classes map[string]policy.PreemptClass) map[string]policy.PreemptClass {
	if p == nil || cfg.Sched.Fairshare == nil {
		return classes
	}
	named := false
	for _, l := range p.Prio.Levels {
		named = named || l&policy.BitFairshare != 0
	}
	if !named {
		return classes
	}
	jobs := append(append([]*model.Job(nil), running...), queued...)
	f := Fairshare(cfg, snap, jobs)
	for _, j := range jobs {
		if f.Value(j, policy.VarFairshareTreeUsage) <= f.Value(j, policy.VarFairSharePerc) {
			continue
		}
		if classes == nil {
			classes = map[string]policy.PreemptClass{}
		}
		classes[j.ID] |= policy.BitFairshare
	}
	return classes
}
