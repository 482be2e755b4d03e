package schedglue

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// Fairshare is the share tree of cfg with the replicated usage laid on it,
// over the entities of the candidates (jobs), or nil when nothing asks for
// it (no fairshare settings and no fairshare variable in the formula or
// the sort keys). The server's qstat view builds it the same way, so the
// position a job shows is the one the cycle used.
func Fairshare(cfg *model.ServerConfig, snap *raftstore.StateSnapshot, jobs []*model.Job) *policy.Fairshare {
	fs := cfg.Sched.Fairshare
	if fs == nil && !usesFairshareVars(cfg.Sched) {
		return nil
	}
	kind := fs.EntityKind()
	seen := map[string]bool{}
	var entities []string
	for _, j := range jobs {
		if e := model.FairshareEntityOf(j, kind); !seen[e] { // "" is the unknown group
			seen[e] = true
			entities = append(entities, e)
		}
	}
	return policy.NewFairshare(fs, snap.FairshareUsage(), entities)
}

func usesFairshareVars(sc model.SchedConfig) bool {
	if sc.JobSortFormula != "" {
		if f, err := policy.ParseFormula(sc.JobSortFormula); err == nil {
			for _, v := range f.Vars() {
				if policy.IsFairshareVar(v) {
					return true
				}
			}
		}
	}
	for _, k := range sc.JobSortKeys {
		if sk, err := policy.ParseJobSortKey(k); err == nil && policy.IsFairshareVar(sk.Name) {
			return true
		}
	}
	return false
}

// noSharesComment keeps a job of an entity without shares from running
// under fairshare_enforce_no_shares ("" when it may run).
func noSharesComment(f *policy.Fairshare, j *model.Job) string {
	if f == nil || !f.Order || !f.Enforce || !f.NoShares(j) {
		return ""
	}
	return scheduler.NotRunning("Fairshare entity " + f.EntityOf(j) + " has no shares")
}
