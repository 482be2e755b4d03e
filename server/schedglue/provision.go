package schedglue

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// ProvisionHook returns the enabled provision hook with a script, or nil:
// the server's provision_enable is true exactly when it exists.
func ProvisionHook(cfg *model.ServerConfig) *model.Hook {
	for _, h := range model.OrderedHooks(cfg.Hooks, "provision") {
		if h.Enabled && h.Script != "" {
			h := h
			return &h
		}
	}
	return nil
}

// ProvisionMode is where the provision hook runs.
func ProvisionMode(h *model.Hook) string {
	if h == nil || h.ProvisionMode == "" {
		return model.ProvModeAgent
	}
	return h.ProvisionMode
}

// ProvisionInfo is the scheduler's view of provisioning: whether it is
// enabled, the policy, and the learned estimate per AOE (the mean over
// hosts of each host's moving average).
func ProvisionInfo(snap *raftstore.StateSnapshot, cfg *model.ServerConfig) scheduler.ProvisionInfo {
	info := scheduler.ProvisionInfo{Enabled: ProvisionHook(cfg) != nil, Policy: cfg.Sched.ProvisionPolicy,
		InFlight: len(snap.ProvOps()), MaxConcurrent: int(cfg.ProvisionConcurrency())}
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
