package scheduler

import "github.com/strata-hpc/strata/model"

// runProv runs a job under the provisioning policy: lookahead_provision
// may decide to wait (waitAOE); the PBS policies are run as they are.
func (c *cycle) runProv(cl *class, dur int64) ([]model.ExecChunk, verdict) {
	if !c.lookaheadOn() {
		return c.run(cl, dur)
	}
	if cl.waitComment != "" {
		// Decided to wait earlier in this cycle: resources only shrink and
		// waits only grow as jobs start, so the class waits again.
		return nil, waitAOE
	}
	return c.runLookahead(cl, dur)
}

// estimateProv is estimate for a job that lookahead_provision keeps
// waiting for vnodes on its AOE: the plan is made on those vnodes only, so
// the top job's hold is where the wait was expected.
func (c *cycle) estimateProv(j *model.Job, cl *class, dur int64, onAOE bool) (model.JobEstimate, bool) {
	if !onAOE {
		return c.estimate(j, cl, dur)
	}
	la := c.look()
	la.aoeOnly = true
	defer func() { la.aoeOnly = false }()
	return c.estimate(j, cl, dur)
}

// provShift is the provisioning a job's planned placement needs before the
// job itself can start: the learned estimate of its AOE when some share
// lands on a vnode not (yet) on it, else 0. A top job's estimated start is
// its calendar slot plus this, so qstat's estimated.start_time (and the
// simulator's estimate error) count the reimage; the slot itself covers
// provisioning and walltime (duration adds provDuration).
func (c *cycle) provShift(j *model.Job, exec []model.ExecChunk) int64 {
	aoe := model.SelectAOE(j.Select)
	if aoe == "" || len(exec) == 0 {
		return 0
	}
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			if v, ok := c.st.index[sh.Vnode]; ok && c.st.vnodes[v].CurrentAOE != aoe {
				return c.snap.Provision.Estimate(aoe)
			}
		}
	}
	return 0
}
