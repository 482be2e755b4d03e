package raftstore

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Degraded reservations (docs/reservations.md, PBS 5.8). After every
// entry that changed vnodes or reservations the FSM looks at each active
// reservation's vnodes: one that is down, offline, stale, unknown, in
// maintenance or asleep (or gone, or covered by a maintenance reservation
// over the same period) makes it degraded: state DG before its start,
// substate DG (IC for a maintenance conflict) while running. When every
// vnode is usable again it goes back to CO or RN. The scheduler replaces
// the unavailable vnodes (ResvDecision.Reconfirm). Being in the FSM, the
// degradation, its retry time and its end are replicated and a new leader
// resumes them from the state alone.

// touchedNow reports whether this entry wrote table.
func (w *writer) touchedNow(table string) bool {
	ti := first[tableIndex](w.txn, tableIndexes, "id", table)
	return ti != nil && ti.Index == w.index
}

// activeResvs returns the reservations that hold vnodes, in id order.
func (w *writer) activeResvs() []*model.Reservation {
	var out []*model.Reservation
	it, _ := w.txn.Get(tableResvs, "id")
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if r := raw.(*model.Reservation); r.Active() {
			out = append(out, r)
		}
	}
	return out
}

// resvSweep runs after each entry; it does nothing unless the entry
// changed vnodes or reservations.
func (w *writer) resvSweep() {
	resvs := w.touchedNow(tableResvs)
	if !resvs && !w.touchedNow(tableVnodes) {
		return
	}
	if !w.levelRecorded(LevelResv) {
		return // a server of the previous release would not (levels.go)
	}
	active := w.activeResvs()
	if len(active) == 0 && !resvs {
		return
	}
	now := w.appended
	var maints []*model.Reservation
	for _, r := range active {
		if r.Maintenance() {
			maints = append(maints, r)
		}
	}
	for _, r := range active {
		if !r.Maintenance() {
			w.degradeCheck(r, maints, now)
		}
	}
	if resvs {
		w.syncResvFlags()
	}
}

// unavailableVnodes lists r's vnodes that cannot serve it; conflict says
// one of them is taken by a maintenance reservation.
func (w *writer) unavailableVnodes(r *model.Reservation, maints []*model.Reservation) (bad []string, conflict bool) {
	for _, name := range r.ResvVnodes() {
		v := w.vnode(name)
		switch {
		case v == nil || model.VnodeDegrades(v.State&^model.NodeMaintenance):
			bad = append(bad, name)
		case maintOverlaps(maints, v.Host, r):
			bad, conflict = append(bad, name), true
		case model.VnodeDegrades(v.State):
			bad = append(bad, name)
		}
	}
	sort.Strings(bad)
	return bad, conflict
}

// maintOverlaps reports whether a maintenance reservation takes host
// during r's current occurrence.
func maintOverlaps(maints []*model.Reservation, host string, r *model.Reservation) bool {
	for _, m := range maints {
		if m.Start < r.End && r.Start < m.End && slices.Contains(m.Hosts, host) {
			return true
		}
	}
	return false
}

// degradeCheck moves r into or out of degradation.
func (w *writer) degradeCheck(r *model.Reservation, maints []*model.Reservation, now int64) {
	bad, conflict := w.unavailableVnodes(r, maints)
	running := r.State == model.ResvRunning
	switch {
	case len(bad) > 0 && !r.Degraded():
		r = r.Copy()
		sub := model.ResvDegraded
		if conflict {
			sub = model.ResvInConflict
		}
		if running {
			r.Substate = sub
		} else {
			r.State, r.Substate = model.ResvDegraded, sub
		}
		r.RetryAt = 0 // the next cycle tries (OpenPBS waits reserve_retry_time)
		if rt := w.meta().Config.ReserveRetryTime; rt > 0 {
			r.RetryAt = now + rt
			if !running && r.Start > now && r.Start < r.RetryAt {
				r.RetryAt = r.Start // PBS: retry at the start if it comes sooner
			}
		}
		r.Unavailable, r.Mtime = bad, now
		r.Comment = w.degradedComment(bad)
		w.putResv(r)
	case len(bad) > 0 && !slices.Equal(bad, r.Unavailable):
		r = r.Copy()
		r.Unavailable, r.Mtime = bad, now
		r.Comment = w.degradedComment(bad)
		w.putResv(r)
	case len(bad) == 0 && r.Degraded():
		r = r.Copy()
		if running {
			r.Substate = model.ResvRunning
		} else {
			r.State, r.Substate = model.ResvConfirmed, model.ResvConfirmed
		}
		r.RetryAt, r.Unavailable, r.Mtime = 0, nil, now
		r.Comment = "Reservation no longer degraded: its vnodes are available again"
		w.putResv(r)
	}
}

// degradedComment says which vnodes are unavailable and why:
// "Reservation degraded: vnode(s) node3 (down), node4 (offline)
// unavailable".
func (w *writer) degradedComment(bad []string) string {
	parts := make([]string, len(bad))
	for i, name := range bad {
		why := "deleted"
		if v := w.vnode(name); v != nil {
			why = v.State.String()
			if !model.VnodeDegrades(v.State) {
				why = "maintenance reservation" // its host is taken over r's period
			}
		}
		parts[i] = name + " (" + why + ")"
	}
	return "Reservation degraded: vnode(s) " + strings.Join(parts, ", ") + " unavailable"
}

// resvReconfirm applies the scheduler's verdict on a degraded
// reservation: new vnodes (the kept ones plus replacements), or the next
// retry.
func (w *writer) resvReconfirm(d model.ResvDecision, now int64) {
	r := w.resv(d.ID)
	if r == nil || !r.Degraded() {
		return // came back meanwhile, or gone
	}
	r = r.Copy()
	r.Mtime = now
	if !d.Confirm {
		if rt := w.meta().Config.ReserveRetryTime; rt > 0 {
			r.RetryAt = now + rt
			if r.State != model.ResvRunning && r.Start > now && r.Start < r.RetryAt {
				r.RetryAt = r.Start
			}
		}
		r.Comment = "Reservation is in degraded mode: " + strings.TrimPrefix(d.Reason, "PBS Failed to confirm resv: ")
		w.putResv(r)
		return
	}
	if r.Standing() && len(r.BaseNodes) == 0 {
		// Only this occurrence moves; the next goes back to its own vnodes.
		r.BaseNodes = r.Nodes
	}
	old := r.ResvVnodes()
	r.Nodes = d.Nodes
	if r.State == model.ResvRunning {
		r.Substate = model.ResvRunning
	} else {
		r.State, r.Substate = model.ResvConfirmed, model.ResvConfirmed
	}
	if r.AOE != "" {
		r.Provisioned = false // replacement hosts may need provisioning before the start
	}
	var moved []string
	for _, v := range r.ResvVnodes() {
		if !slices.Contains(old, v) {
			moved = append(moved, v)
		}
	}
	r.Comment = fmt.Sprintf("Reservation reconfirmed at %s: vnode(s) %s replaced by %s",
		pbsTime(now), strings.Join(r.Unavailable, ", "), strings.Join(moved, ", "))
	r.RetryAt, r.Unavailable = 0, nil
	w.putResv(r)
}

// syncResvFlags makes the vnode states show the reservations that run:
// resv-exclusive on the vnodes of a running exclusive reservation,
// maintenance on those of a running maintenance reservation, and neither
// elsewhere. It is computed from all reservations, so the order in which
// two reservations end and start at the same time does not matter.
func (w *writer) syncResvFlags() {
	want := map[string]model.NodeState{}
	for _, r := range w.activeResvs() {
		if r.State != model.ResvRunning {
			continue
		}
		var f model.NodeState
		switch {
		case r.Maintenance():
			f = model.NodeMaintenance
		case r.AOE != "" || r.Place.Sharing == model.SharingExcl || r.Place.Sharing == model.SharingExclHost:
			f = model.NodeResvExclusive
		default:
			continue
		}
		for _, name := range r.ResvVnodes() {
			want[name] |= f
		}
	}
	const flags = model.NodeResvExclusive | model.NodeMaintenance
	var change []*model.Vnode
	it, _ := w.txn.Get(tableVnodes, "id")
	for raw := it.Next(); raw != nil; raw = it.Next() {
		v := raw.(*model.Vnode)
		if v.State&flags != want[v.Name] {
			change = append(change, v)
		}
	}
	for _, v := range change {
		v = v.Copy()
		v.State = v.State&^flags | want[v.Name]
		w.putVnode(v)
	}
}

// runBlockers are the vnode states that keep job j from starting: a job of
// a reservation may start on the reservation's resv-exclusive vnodes (the
// scheduler placed it inside the reservation's own vnodes).
func runBlockers(j *model.Job) model.NodeState {
	if model.IsResvQueue(j.Queue) {
		return model.Unavailable &^ model.NodeResvExclusive
	}
	return model.Unavailable
}
