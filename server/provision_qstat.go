package server

import (
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// serverProvision is the part of the provisioning insight qstat -Bf shows
// as server attributes, or nil on a server that has no provision hook and
// never provisioned (its qstat -Bf stays OpenPBS's).
func serverProvision(snap *raftstore.StateSnapshot, now int64) *api.ServerProvision {
	st := provisionStatus(snap, now)
	if !st.Enabled && len(st.Ops) == 0 && len(st.Stats) == 0 {
		return nil
	}
	return &api.ServerProvision{
		Enabled: st.Enabled, MaxConcurrent: st.MaxConcurrent, Running: st.Running, Waiting: st.Waiting,
		PerAOE: st.PerAOE, Suggested: st.Suggested,
	}
}
