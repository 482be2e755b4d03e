package raftstore

import (
	"strings"

	"github.com/strata-hpc/strata/model"
)

// The state machine describes what each entry did in the words of PBS's
// server log (job queued, run, held, deleted, ended; nodes down and up;
// provisioning; reservations; qmgr changes). Every server applies the same
// entries, so every server's event log has the same lines; the server
// writes them (server/eventlog.go).

// OnEvents sets the receiver of event-log lines. Call it before the FSM
// applies anything.
func (f *FSM) OnEvents(fn func([]model.LogEvent)) { f.onEvents = fn }

func (f *FSM) emit(events []model.LogEvent) {
	if f.onEvents != nil && len(events) > 0 {
		f.onEvents(events)
	}
}

// logEvent records a line for the entry being applied.
func (w *writer) logEvent(now int64, typ int, class, id, msg string) {
	if now <= 0 {
		now = w.appended
	}
	w.events = append(w.events, model.LogEvent{Index: w.index, Time: now, Type: typ, Class: class, ID: id, Msg: msg})
}

// busyStates change with every job that starts or ends: logged at a debug
// level, while down, offline, provisioning and the rest are system events.
const busyStates = model.NodeJobBusy | model.NodeJobExclusive | model.NodeResvExclusive

// vnodeStateEvent logs a vnode's state change (nothing for a vnode that
// is new or unchanged).
func (w *writer) vnodeStateEvent(old, v *model.Vnode) {
	if old == nil || old.State == v.State {
		return
	}
	typ := model.LogSystem
	if (old.State^v.State)&^busyStates == 0 {
		typ = model.LogDebug2
	}
	msg := "state changed from " + old.State.String() + " to " + v.State.String()
	if v.Comment != "" && v.Comment != old.Comment {
		msg += ": " + v.Comment
	}
	w.logEvent(v.LastStateChange, typ, "Node", v.Name, msg)
}

// resvStateEvent logs a reservation's new state.
func (w *writer) resvStateEvent(old, r *model.Reservation) {
	switch {
	case old == nil:
		w.logEvent(r.Ctime, model.LogResv, "Resv", r.ID, "Reservation submitted, state "+model.ResvStateLong(r.State))
	case old.State != r.State:
		w.logEvent(r.Mtime, model.LogResv, "Resv", r.ID, "Reservation state changed from "+model.ResvStateLong(old.State)+" to "+model.ResvStateLong(r.State))
	}
}

// manageEvent logs a qmgr change with its values, as qmgr would print it.
func (w *writer) manageEvent(c *Manage) {
	req := c.Request
	class := map[string]string{"server": "Svr", "queue": "Que", "node": "Node", "hook": "Hook", "resource": "Svr", "sched": "Sched"}[req.Object]
	if class == "" {
		class = "Svr"
	}
	parts := []string{req.Verb, req.Object}
	if req.Name != "" {
		parts = append(parts, req.Name)
	}
	msg := strings.Join(parts, " ")
	var attrs []string
	for _, a := range req.Attrs {
		if a.Op == "" {
			attrs = append(attrs, a.Key())
			continue
		}
		attrs = append(attrs, a.Key()+" "+a.Op+" "+a.Value)
	}
	if len(attrs) > 0 {
		msg += " " + strings.Join(attrs, ", ")
	}
	if c.Requestor != "" {
		msg += " at request of " + c.Requestor
	}
	id := req.Name
	if id == "" {
		id = req.Object
	}
	w.logEvent(c.Now, model.LogAdmin, class, id, msg)
}
