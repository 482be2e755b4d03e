package server

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// provisionHook returns the enabled provision hook with a script, or nil:
// the server's provision_enable is true exactly when it exists.
func provisionHook(cfg *model.ServerConfig) *model.Hook {
	for _, h := range model.OrderedHooks(cfg.Hooks, "provision") {
		if h.Enabled && h.Script != "" {
			h := h
			return &h
		}
	}
	return nil
}

// provisionMode is where the provision hook runs.
func provisionMode(h *model.Hook) string {
	if h == nil || h.ProvisionMode == "" {
		return model.ProvModeAgent
	}
	return h.ProvisionMode
}

// provisionInfo is the scheduler's view of provisioning: whether it is
// enabled, the policy, and the learned estimate per AOE (the mean over
// hosts of each host's moving average).
func provisionInfo(snap *raftstore.StateSnapshot, cfg *model.ServerConfig) scheduler.ProvisionInfo {
	info := scheduler.ProvisionInfo{Enabled: provisionHook(cfg) != nil, Policy: cfg.Sched.ProvisionPolicy}
	sum, n := map[string]int64{}, map[string]int64{}
	for _, st := range snap.ProvStats() {
		if st.Successes > 0 {
			sum[st.AOE] += st.MeanSecs
			n[st.AOE]++
		}
	}
	if len(n) > 0 {
		info.Estimates = make(map[string]int64, len(n))
		for aoe, k := range n {
			info.Estimates[aoe] = max(1, sum[aoe]/k)
		}
	}
	return info
}
