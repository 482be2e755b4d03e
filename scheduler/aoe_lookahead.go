package scheduler

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/strata-hpc/strata/model"
)

// LookaheadProvision is Strata's own provisioning policy (docs/provisioning.md,
// "lookahead_provision"). For a job with an AOE it
//
//  1. runs the job on vnodes already on its AOE when they are free now;
//  2. otherwise weighs starting now, reimaging what the AOE's free vnodes
//     lack, against waiting until more of the AOE's vnodes come free (the
//     walltime ends of the jobs on them) and reimaging less or nothing
//     then (choose); a job that waits keeps a top-job estimate planned on
//     the AOE's vnodes;
//  3. when it reimages, takes first the vnodes whose current AOE the queue
//     wants least, so a reimage does not take a vnode another queued job
//     would have used as it is.
const LookaheadProvision = "lookahead_provision"

// lookaheadWeight weighs provisioning delay against waiting: a reimage
// costs more than the job's own delay (the vnode's capacity while it
// provisions, a slot of max_concurrent_provision others wait for, and
// often a reimage back later), so a second of provisioning counts as this
// many seconds of waiting.
// Measured on the first 1,000 (Lublin 256) and 2,000 (SDSC-SP2) jobs with
// 4 AOEs and 300 s reimages: 1 reimages most, 16 and more wait too long
// on user walltimes; 4 is the best of both (docs/simulate.md).
const lookaheadWeight = 4

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
// vnodes if they are free, else reimage now or wait, whichever is expected
// to start the job sooner (see choose). On waitAOE the comment says why.
func (c *cycle) runLookahead(cl *class, dur int64) ([]model.ExecChunk, verdict) {
	aoe := classAOE(cl)
	if aoe == "" || !c.snap.Provision.Enabled {
		return c.run(cl, dur)
	}
	la := c.look()
	la.aoeOnly = true
	exec, v := c.run(cl, dur)
	la.aoeOnly = false
	if v == ran {
		return exec, v
	}
	ch := c.choose(cl, aoe)
	if ch.now {
		return c.run(cl, dur)
	}
	cl.waitOnAOE = ch.hosts == 0
	cl.waitComment = prefixNotRunning + fmt.Sprintf(msgWaitAOE, aoe, ch.wait, ch.costNow)
	return nil, waitAOE
}

// choice is lookahead_provision's decision for a job that cannot start on
// its AOE's vnodes now.
type choice struct {
	now     bool  // reimage now
	wait    int64 // else: seconds to wait for more vnodes on the AOE
	hosts   int   // ... and hosts to reimage then (0: none)
	costNow int64 // the expected provisioning delay of starting now
}

// choose weighs starting the job now, reimaging what its AOE's free
// vnodes do not cover, against waiting until more vnodes on the AOE come
// free (from the walltimes of the jobs on them) and reimaging less or
// nothing then. Each option's delay is its wait plus the provisioning it
// needs, the latter weighted by lookaheadWeight; the smallest wins, ties
// to the earliest.
func (c *cycle) choose(cl *class, aoe string) choice {
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
	slices.SortFunc(cs, func(a, b cand) int { return cmp.Compare(a.t, b.t) })
	got := make([]float64, st.nres)
	now := c.snap.Now
	i := 0
	for i < len(cs) && cs[i].t <= now {
		c.addCapa(got, cs[i].v)
		i++
	}
	like := -1 // a vnode to size the missing request by
	if len(cs) > 0 {
		like = cs[0].v
	}
	hostsNow := c.deficit(cl, got, like)
	costNow := c.reimageCost(aoe, hostsNow)
	best := choice{now: true, hosts: hostsNow, costNow: costNow}
	bestScore := lookaheadWeight * costNow
	for i < len(cs) {
		t := cs[i].t
		for i < len(cs) && cs[i].t == t {
			c.addCapa(got, cs[i].v)
			i++
		}
		if t >= forever/2 {
			break
		}
		h := c.deficit(cl, got, like)
		score := t - now
		if h > 0 {
			score += lookaheadWeight * c.reimageCost(aoe, h)
		}
		if score < bestScore {
			best, bestScore = choice{wait: t - now, hosts: h, costNow: costNow}, score
		}
		if h == 0 {
			break // waiting longer cannot do better
		}
	}
	return best
}

func (c *cycle) addCapa(got []float64, v int) {
	st := c.st
	for r := range got {
		got[r] += st.capa[v*st.nres+r]
	}
}

// deficit is about how many vnodes like v (-1: the average vnode) the
// class's request needs beyond got; 0 when got covers it.
func (c *cycle) deficit(cl *class, got []float64, v int) int {
	st := c.st
	n := 0
	for r := range got {
		miss := cl.need[r] - got[r]
		if miss <= 0 {
			continue
		}
		per := 0.0
		if v >= 0 {
			per = st.capa[v*st.nres+r]
		} else if len(st.vnodes) > 0 {
			per = st.total[r] / float64(len(st.vnodes))
		}
		if per > 0 {
			n = max(n, int(math.Ceil(miss/per)))
		} else {
			n = max(n, 1)
		}
	}
	return n
}

// reimageCost is the expected delay reimaging hosts hosts to aoe adds
// before a job can start: the learned estimate, once per round of
// max_concurrent_provision the operations under way and the job's own
// take (they run FIFO, that many at a time).
func (c *cycle) reimageCost(aoe string, hosts int) int64 {
	p := &c.snap.Provision
	est := p.Estimate(aoe)
	if p.MaxConcurrent <= 0 {
		return est
	}
	ahead := p.InFlight + c.look().pending + max(hosts, 1) - 1
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
