package scheduler

import (
	"slices"

	"github.com/strata-hpc/strata/model"
)

// Provisioning policies (sched provision_policy).
const (
	AggressiveProvision = "aggressive_provision"
	AvoidProvision      = "avoid_provision"
	// LookaheadProvision: see aoe_lookahead.go.
)

// Provisioning comments, as OpenPBS words them (prefixed "Not Running: ").
const (
	msgProvDisabledServer = "Cannot provision, provisioning disabled on server"
	msgProvDisabledVnode  = "Cannot provision, provisioning disabled on vnode"
	msgProvConflict       = "Provision conflict with existing job/reservation"
)

// ProvisionInfo is what the scheduler knows about provisioning.
type ProvisionInfo struct {
	// Enabled is the server's provision_enable: an enabled provision hook
	// exists. Without it no vnode that needs provisioning is chosen.
	Enabled bool
	// Policy is aggressive_provision (default) or avoid_provision.
	Policy string
	// Estimates maps an AOE to the seconds provisioning to it is expected
	// to take (learned by the server); missing AOEs use
	// model.ProvisionDuration.
	Estimates map[string]int64
	// InFlight is the number of provisioning operations waiting or
	// running, MaxConcurrent the server's max_concurrent_provision (0:
	// unknown); lookahead_provision adds the wait for a slot to the cost
	// of a reimage.
	InFlight, MaxConcurrent int
}

// Estimate is the expected provisioning time of aoe in seconds.
func (p *ProvisionInfo) Estimate(aoe string) int64 {
	if s, ok := p.Estimates[aoe]; ok && s > 0 {
		return s
	}
	return model.ProvisionDuration
}

// chunkAOE is the AOE a chunk asks for, or "".
func chunkAOE(ch *chunkReq) string {
	for i := range ch.matchers {
		if ch.matchers[i].kind == matchAOE {
			return ch.matchers[i].value
		}
	}
	return ""
}

// provUsable is the provisioning part of "may v take a copy of ch": a
// vnode already on the chunk's AOE is fine; one that must be provisioned
// needs an enabled provision hook, provision_enable and a host that runs
// nothing (now, or in the planning window). Strata provisions a whole host
// as one unit, so every vnode of the host must qualify (OpenPBS refuses
// multi-vnode hosts outright).
func (c *cycle) provUsable(v int, ch *chunkReq) bool {
	aoe := chunkAOE(ch)
	if aoe == "" || c.st.vnodes[v].CurrentAOE == aoe {
		return true
	}
	if c.ranked && c.la != nil && c.la.aoeOnly {
		return false // lookahead_provision: on the AOE only (aoe_lookahead.go)
	}
	return c.provReason(v) == ""
}

// provReason says why the host of v cannot be provisioned now ("" when it
// can).
func (c *cycle) provReason(v int) string {
	if !c.snap.Provision.Enabled {
		return msgProvDisabledServer
	}
	st := c.st
	for _, w := range st.hosts[st.hostOf[v]] {
		if !st.vnodes[w].ProvisionEnable {
			return msgProvDisabledVnode
		}
	}
	for _, w := range st.hosts[st.hostOf[v]] {
		if !st.eligible[w] || c.used(w) {
			return msgProvConflict
		}
	}
	return ""
}

// provComment replaces the comment of a job with an AOE that could not run
// when the reason is provisioning: some vnode offers the AOE but none of
// those can be provisioned. Such a job is never "Can Never Run" (an admin
// may enable provisioning at any time).
func (c *cycle) provComment(j *model.Job, text string, never bool) (string, bool) {
	aoe := model.SelectAOE(j.Select)
	if aoe == "" || text == "" {
		return text, never
	}
	reason := ""
	for v, vn := range c.st.vnodes {
		if vn.CurrentAOE == aoe || !inList(vn.Available["aoe"], aoe) || vn.State&model.Unavailable != 0 {
			continue
		}
		r := c.provReason(v)
		if r == "" {
			return text, never // a provisionable vnode exists: resources are the reason
		}
		if reason == "" || r == msgProvDisabledServer {
			reason = r
		}
	}
	if reason == "" {
		return text, never
	}
	return prefixNotRunning + reason, false
}

// markProvision marks, in a run decision of a job with an AOE, the shares
// on hosts that must be provisioned (exec_vnode shows ":aoe=X" on them) and
// takes those hosts out of the rest of the cycle: they will be
// provisioning. A host is provisioned when an AOE chunk landed on a vnode
// of it that is not on the AOE.
func (c *cycle) markProvision(j *model.Job, cl *class, exec []model.ExecChunk) {
	aoe := model.SelectAOE(j.Select)
	if aoe == "" {
		return
	}
	st := c.st
	hosts := map[string]bool{}
	i := 0
	for ci := range cl.chunks {
		ch := &cl.chunks[ci]
		for k := 0; k < ch.count && i < len(exec); k, i = k+1, i+1 {
			if chunkAOE(ch) == "" && cl.arrangement != model.PlacePack {
				continue
			}
			for _, sh := range exec[i].Shares {
				if v, ok := st.index[sh.Vnode]; ok && st.vnodes[v].CurrentAOE != aoe {
					hosts[sh.Host] = true
				}
			}
		}
	}
	c.noteStarted(j, exec, len(hosts)) // lookahead_provision (aoe_lookahead.go)
	if len(hosts) == 0 {
		return
	}
	for i := range exec {
		for k := range exec[i].Shares {
			if hosts[exec[i].Shares[k].Host] {
				exec[i].Shares[k].AOE = aoe
			}
		}
	}
	for h := range hosts {
		for _, v := range st.byHost[h] {
			st.hold(v)
		}
	}
}

// provDuration is the provisioning time the calendar adds to a job with an
// AOE: a queued job may need it; a running one did if its exec_vnode
// carries an AOE.
func (c *cycle) provDuration(j *model.Job) int64 {
	aoe := model.SelectAOE(j.Select)
	if aoe == "" {
		return 0
	}
	if j.State != model.StateQueued {
		provisioned := false
		for _, ec := range j.Exec {
			for _, sh := range ec.Shares {
				provisioned = provisioned || sh.AOE != ""
			}
		}
		if !provisioned {
			return 0
		}
	}
	return c.snap.Provision.Estimate(aoe)
}

// rankForAOE implements avoid_provision for one placement attempt: the
// vnode order becomes vnodes on the class's AOE, then vnodes with no AOE,
// then vnodes on another AOE, node_sort_key order within each rank. As in
// OpenPBS the list is not re-sorted after each chunk. It returns the
// function that restores the normal order (nil when nothing changed).
func (c *cycle) rankForAOE(cl *class) func() {
	pol := c.snap.Provision.Policy
	if pol != AvoidProvision && pol != LookaheadProvision {
		return nil
	}
	aoe := classAOE(cl)
	if aoe == "" {
		return nil
	}
	o := c.order
	rank := func(v int) int {
		switch cur := c.st.vnodes[v].CurrentAOE; {
		case cur == aoe:
			return 0
		case cur == "":
			return 1
		}
		return 2
	}
	if pol == LookaheadProvision {
		rank = c.lookaheadRank(aoe)
	}
	seq, pos, dynamic := o.seq, o.pos, o.dynamic
	ranked := slices.Clone(seq)
	slices.SortStableFunc(ranked, func(a, b int) int { return rank(a) - rank(b) })
	o.seq, o.pos = ranked, make([]int, len(ranked))
	for p, v := range ranked {
		o.pos[v] = p
	}
	o.dynamic = false
	o.version++
	c.ranked = true
	return func() {
		o.seq, o.pos, o.dynamic = seq, pos, dynamic
		o.version++
		c.ranked = false
	}
}
