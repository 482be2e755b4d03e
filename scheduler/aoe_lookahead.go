package scheduler

import (
	"fmt"
	"slices"

	"github.com/strata-hpc/strata/model"
)

// LookaheadProvision is Strata's own provisioning policy (docs/provisioning.md,
// "lookahead_provision"). For a job with an AOE it
//
//  1. runs the job on vnodes already on its AOE when they are free now;
//  2. otherwise compares the expected wait for enough vnodes already on
//     the AOE (when the running jobs on them end, from their walltimes)
//     with the cost of a reimage (the learned per-AOE estimate plus the
//     queue in front of max_concurrent_provision), and waits when waiting
//     is cheaper: the job keeps a top-job estimate on the AOE's vnodes;
//  3. when it reimages, takes first the vnodes whose current AOE the queue
//     wants least, so a reimage does not take a vnode another queued job
//     would have used as it is.
const LookaheadProvision = "lookahead_provision"

// Lookahead tuning. A reimage is chosen only when the expected wait for a
// vnode on the AOE exceeds waitFactor times the reimage cost: walltimes
// overstate how long jobs run (users ask for more than they use), so the
// calendar's wait is discounted before it is compared with a reimage, and
// a reimage also costs the capacity of the vnodes while they provision.
const (
	lookaheadWaitNum = 1
	lookaheadWaitDen = 1
)

// verdict of a lookahead job that waits for vnodes on its AOE.
const waitAOE verdict = conflicts + 1

// msgWaitAOE is the comment of a job that waits for vnodes on its AOE
// instead of reimaging others.
const msgWaitAOE = "Waiting for vnodes on AOE %s (expected in %d s, a reimage costs %d s)"

// lookahead is the per-cycle state of lookahead_provision, built at the
// first job with an AOE.
type lookahead struct {
	demand  map[string]int // AOE -> chunks of queued jobs asking for it
	freeAt  []int64        // vnode -> when the jobs on it end (now when unused)
	pending int            // hosts this cycle sent to provisioning
	aoeOnly bool           // placement may use only vnodes on the AOE (provUsable)
	aoe     string         // the AOE of the class being placed
}

func (c *cycle) lookaheadOn() bool { return c.snap.Provision.Policy == LookaheadProvision }

// look builds the cycle's lookahead state on first use.
func (c *cycle) look() *lookahead {
	if c.la != nil {
		return c.la
	}
	la := &lookahead{demand: map[string]int{}, freeAt: make([]int64, len(c.st.vnodes))}
	for _, j := range c.snap.Queued {
		if a := model.SelectAOE(j.Select); a != "" {
			n := 0
			for _, ch := range j.Select {
				n += ch.Count
			}
			la.demand[a] += n
		}
	}
	now := c.snap.Now
	for v := range la.freeAt {
		la.freeAt[v] = now
	}
	for _, j := range c.snap.Running {
		e := c.runningEnd(j)
		for _, ec := range j.Exec {
			for _, sh := range ec.Shares {
				if v, ok := c.st.index[sh.Vnode]; ok {
					la.freeAt[v] = max(la.freeAt[v], e)
				}
			}
		}
	}
	c.la = la
	return la
}

// noteStarted records, for lookahead, when the vnodes of a job started in
// this cycle come free, and that the job's placement no longer wants its
// AOE.
func (c *cycle) noteStarted(j *model.Job, exec []model.ExecChunk, provHosts int) {
	if !c.lookaheadOn() || c.la == nil {
		return
	}
	la := c.la
	e := end(c.snap.Now, c.duration(j))
	for _, ec := range exec {
		for _, sh := range ec.Shares {
			if v, ok := c.st.index[sh.Vnode]; ok {
				la.freeAt[v] = max(la.freeAt[v], e)
			}
		}
	}
	if a := model.SelectAOE(j.Select); a != "" {
		for _, ch := range j.Select {
			la.demand[a] -= ch.Count
		}
	}
	la.pending += provHosts
}

// classAOE is the AOE the class's chunks ask for, or "".
func classAOE(cl *class) string {
	for i := range cl.chunks {
		if a := chunkAOE(&cl.chunks[i]); a != "" {
			return a
		}
	}
	return ""
}

// runLookahead is run for a job under lookahead_provision: on the AOE's
// vnodes if they are free, else reimage or wait, whichever is expected to
// start the job sooner. On waitAOE the comment says why.
func (c *cycle) runLookahead(cl *class, dur int64) ([]model.ExecChunk, verdict) {
	aoe := classAOE(cl)
	if aoe == "" || !c.snap.Provision.Enabled {
		return c.run(cl, dur)
	}
	la := c.look()
	la.aoe, la.aoeOnly = aoe, true
	exec, v := c.run(cl, dur)
	la.aoeOnly = false
	if v == ran {
		return exec, v
	}
	wait := c.aoeWait(cl, aoe)
	cost := c.reimageCost(aoe)
	if wait*lookaheadWaitNum <= cost*lookaheadWaitDen {
		cl.waitComment = prefixNotRunning + fmt.Sprintf(msgWaitAOE, aoe, wait, cost)
		return nil, waitAOE
	}
	return c.run(cl, dur)
}

// aoeWait is how long until enough vnodes already on aoe (and allowed for
// the class) come free for the class's whole request, from the walltimes
// of the jobs on them; forever-ish when there are not enough such vnodes.
func (c *cycle) aoeWait(cl *class, aoe string) int64 {
	la := c.look()
	st := c.st
	type cand struct {
		v int
		t int64
	}
	var cs []cand
	for v, vn := range st.vnodes {
		if vn.CurrentAOE != aoe || !st.eligible[v] {
			continue
		}
		ok := false
		for i := range cl.chunks {
			ok = ok || cl.chunks[i].allows(v)
		}
		if ok {
			cs = append(cs, cand{v, la.freeAt[v]})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int { return cmp64(a.t, b.t) })
	got := make([]float64, st.nres)
	for _, x := range cs {
		done := true
		for r := range got {
			got[r] += st.capa[x.v*st.nres+r]
			done = done && got[r] >= cl.need[r]
		}
		if done {
			return max(0, x.t-c.snap.Now)
		}
	}
	return forever / 2
}

// reimageCost is the expected delay a reimage to aoe adds before a job
// can start: the learned estimate, plus the turns to wait for a slot of
// max_concurrent_provision when more operations are under way than slots.
func (c *cycle) reimageCost(aoe string) int64 {
	p := &c.snap.Provision
	est := p.Estimate(aoe)
	if p.MaxConcurrent <= 0 {
		return est
	}
	ahead := p.InFlight + c.look().pending
	return est * int64(1+ahead/p.MaxConcurrent)
}

// lookaheadRank is the vnode rank of lookahead_provision for a class with
// AOE aoe: vnodes on it first, then by how many queued chunks want the
// vnode's current AOE (vnodes nobody waits for are reimaged first).
func (c *cycle) lookaheadRank(aoe string) func(v int) int {
	la := c.look()
	return func(v int) int {
		cur := c.st.vnodes[v].CurrentAOE
		if cur == aoe {
			return 0
		}
		return 1 + max(0, la.demand[cur])
	}
}

func cmp64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
