package scheduler

import (
	"slices"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Reconfirmation of degraded reservations (docs/reservations.md, PBS
// 5.8). A reservation whose vnodes became unavailable (the FSM marks it
// DG, or RN with substate DG) keeps the chunks whose vnodes are all
// usable, and the scheduler looks for equivalent vnodes for the others:
// each lost chunk is placed again with the reservation's own request for
// it (same resources, same AOE, provisionable to it), over the rest of the
// current occurrence, against the calendar. OpenPBS waits
// reserve_retry_time (600 s) first; Strata tries in the first cycle after
// the degradation (reserve_retry_time, if set, spaces later attempts). A
// running reservation's jobs stay where they run.

// msgDegradedMode starts the comment of a reservation that could not be
// replaced yet (the FSM writes it).
const msgDegradedMode = "Reservation is in degraded mode"

// reconfirmDegraded tries every degraded reservation that is due and
// returns the ones it reconfirmed, with their new vnodes, so that the
// cycle holds them.
func (c *cycle) reconfirmDegraded() []*model.Reservation {
	var out []*model.Reservation
	for _, r := range c.snap.Reservations {
		if !r.Degraded() || r.RetryAt > c.snap.Now {
			continue
		}
		nodes, lost, ok := c.replaceLost(r)
		if lost == 0 {
			continue // back meanwhile: the FSM ends the degradation itself
		}
		if ok {
			c.plan.Resvs = append(c.plan.Resvs, model.ResvDecision{ID: r.ID, Confirm: true, Nodes: nodes, Reconfirm: true})
			cr := *r
			cr.Nodes = nodes
			if cr.State == model.ResvDegraded {
				cr.State = model.ResvConfirmed
			}
			out = append(out, &cr)
			continue
		}
		// Said once without reserve_retry_time (the next cycles try again
		// silently); with it, every failure moves RetryAt forward.
		if r.RetryAt > 0 || !strings.HasPrefix(r.Comment, msgDegradedMode) {
			c.plan.Resvs = append(c.plan.Resvs, model.ResvDecision{ID: r.ID, Reconfirm: true,
				Reason: resvFailPrefix + msgResvNoFit})
		}
	}
	return out
}

// usableVnode reports whether a vnode of this cycle can serve r: the
// FSM's degradation test (its state, and no maintenance reservation on its
// host during r's occurrence).
func (c *cycle) usableVnode(r *model.Reservation, name string) bool {
	i, ok := c.st.index[name]
	if !ok || model.VnodeDegrades(c.st.vnodes[i].State) {
		return false
	}
	host := c.st.vnodes[i].Host
	for _, m := range c.snap.Reservations {
		if m.Maintenance() && m.Active() && m.Start < r.End && r.Start < m.End && slices.Contains(m.Hosts, host) {
			return false
		}
	}
	return true
}

// replaceLost places the chunks of r that lost a vnode again and returns
// r's vnodes with the replacements, or false when there are none.
func (c *cycle) replaceLost(r *model.Reservation) ([]model.ExecChunk, int, bool) {
	chunks := expandSelect(r.Select)
	var lost []int
	var sel model.Select
	for i, ec := range r.Nodes {
		ok := true
		for _, sh := range ec.Shares {
			ok = ok && c.usableVnode(r, sh.Vnode)
		}
		if ok {
			continue
		}
		lost = append(lost, i)
		if i < len(chunks) {
			sel = append(sel, chunks[i])
		} else {
			sel = append(sel, chunkOfExec(ec))
		}
	}
	if len(lost) == 0 {
		return nil, 0, false
	}
	pj := &model.Job{ID: r.ID, Select: sel, Place: r.Place}
	if r.AOE != "" {
		pj.Place.Sharing = model.SharingExcl
	}
	cl := c.compileClass("resvdg|"+r.ID, pj)
	now := c.snap.Now
	t := now
	if r.State != model.ResvRunning {
		t = max(now, r.Start-c.lead(r))
	}
	if r.End <= t {
		return nil, len(lost), false
	}
	placed, ok := c.tryAt(cl, t, r.End)
	if !ok || len(placed) < len(lost) {
		return nil, len(lost), false
	}
	if r.AOE != "" {
		for i := range placed {
			for k := range placed[i].Shares {
				placed[i].Shares[k].AOE = r.AOE
			}
		}
	}
	c.cal.addHold(c.st, holdReservation, placed, t, r.End, cl.excl)
	nodes := append([]model.ExecChunk(nil), r.Nodes...)
	for k, i := range lost {
		nodes[i] = placed[k]
	}
	return append(nodes, placed[len(lost):]...), len(lost), true
}

// expandSelect lists a select's chunks one per copy, in the order the
// placement writes exec chunks.
func expandSelect(sel model.Select) model.Select {
	var out model.Select
	for _, ch := range sel {
		one := ch
		one.Count = 1
		for k := 0; k < ch.Count; k++ {
			out = append(out, one)
		}
	}
	return out
}

// chunkOfExec is a request for what an exec chunk holds, for a chunk the
// select does not describe (whole hosts added by exclhost).
func chunkOfExec(ec model.ExecChunk) model.Chunk {
	ch := model.Chunk{Count: 1, Consume: map[string]float64{}}
	for _, sh := range ec.Shares {
		for k, a := range sh.Amounts {
			ch.Consume[k] += a
		}
	}
	return ch
}

// knownShares keeps the shares of exec whose vnode is in this cycle (a
// degraded reservation may hold a vnode that was deleted).
func (c *cycle) knownShares(exec []model.ExecChunk) []model.ExecChunk {
	out := make([]model.ExecChunk, 0, len(exec))
	for _, ec := range exec {
		nc := model.ExecChunk{MPIProcs: ec.MPIProcs}
		for _, sh := range ec.Shares {
			if _, ok := c.st.index[sh.Vnode]; ok {
				nc.Shares = append(nc.Shares, sh)
			}
		}
		if len(nc.Shares) > 0 {
			out = append(out, nc)
		}
	}
	return out
}
