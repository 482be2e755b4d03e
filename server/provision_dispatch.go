package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/schedglue"
)

// provisionTick bounds how long the dispatcher sleeps without a state
// change: alarms are checked at least this often.
const provisionTick = 250 * time.Millisecond

// dispatcher starts waiting provisioning operations in FIFO order while
// fewer than max_concurrent_provision run (one operation per host, by
// construction), times out operations whose alarm passed, and runs the
// hook itself in the server and ssh modes. Like the Loom/Coopr server it
// plans and watches; the work is done by the agents (or the hook). It
// lives for one leadership term and keeps nothing that is not in the
// replicated state except the hooks it runs itself, so a new leader
// resumes every operation from the state.
type dispatcher struct {
	s *Server
	// local holds the hooks this leader runs (server and ssh modes), by
	// host; cancelling one kills the hook's process group.
	mu    sync.Mutex
	local map[string]context.CancelFunc
	// seen is the operation set of the last step, to log outcomes.
	seen map[string]*model.ProvOp
}

// provisionLoop is the leader loop of provisioning.
func (s *Server) provisionLoop(ctx context.Context) {
	d := &dispatcher{s: s, local: map[string]context.CancelFunc{}, seen: map[string]*model.ProvOp{}}
	defer d.stopAll()
	for {
		snap := s.state()
		ws := snap.ProvWatch()
		d.step(ctx, snap)
		wctx, cancel := context.WithTimeout(ctx, provisionTick)
		ws.WatchCtx(wctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
	}
}

func (d *dispatcher) stopAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, cancel := range d.local {
		cancel()
	}
}

// step is one pass over the operations.
func (d *dispatcher) step(ctx context.Context, snap *raftstore.StateSnapshot) {
	s := d.s
	cfg := snap.Config()
	now := s.now().Unix()
	ops := snap.ProvOps()
	d.logOutcomes(snap, ops)
	hook := schedglue.ProvisionHook(&cfg)
	running := 0
	for _, op := range ops {
		if op.State != model.ProvWaiting {
			running++
			d.watch(ctx, snap, op, now)
		}
	}
	limit := int(cfg.ProvisionConcurrency())
	for _, op := range ops {
		if op.State != model.ProvWaiting || running >= limit {
			continue
		}
		if hook == nil {
			s.logger.Printf("%s;Provisioning hook not found", op.JobID)
			d.report(op.Host, 0, raftstore.ProvNotStarted, -1, "Provisioning hook not found")
			continue
		}
		alarm := int64(hook.Alarm)
		if alarm <= 0 {
			alarm = 30
		}
		res, err := s.apply(&raftstore.ProvisionStart{Host: op.Host, Mode: schedglue.ProvisionMode(hook), Alarm: alarm, Now: now})
		if err != nil {
			s.logger.Printf("start provisioning of %s: %v", op.Host, err)
			return
		}
		started, _ := res.(*raftstore.ProvisionStartResult)
		if started == nil || started.Op == nil {
			continue
		}
		running++
		for _, vn := range started.Op.Vnodes {
			s.logger.Printf("%s;Provisioning vnode %s with AOE %s started successfully (%s mode)", op.JobID, vn, op.AOE, started.Op.Mode)
		}
		d.launch(ctx, started.Op, hook)
	}
}

// watch checks one started operation: its alarm, and for an operation
// whose hook ran on a previous leader (server or ssh mode), whether the
// host already shows the outcome (new boot id, requested AOE detected).
func (d *dispatcher) watch(ctx context.Context, snap *raftstore.StateSnapshot, op *model.ProvOp, now int64) {
	if now >= op.Started+op.Alarm {
		d.s.logProvisionFailure(op, raftstore.ProvTimedOut, -1, "")
		d.cancelLocal(op.Host)
		d.report(op.Host, op.Attempt, raftstore.ProvTimedOut, -1, "alarm")
		return
	}
	if op.Mode == model.ProvModeAgent || op.State != model.ProvRunning {
		return
	}
	d.mu.Lock()
	_, mine := d.local[op.Host]
	d.mu.Unlock()
	if !mine && op.Rebooted && op.Detects && op.ReportedAOE == op.AOE {
		// The hook ran under another leader: its exit status is lost,
		// but the host rebooted onto the AOE, which is what exit 0 means.
		d.s.logger.Printf("provisioning of %s: outcome learned from the agent after a leader change", op.Host)
		d.report(op.Host, op.Attempt, raftstore.ProvHookExited, 0, "learned")
	}
}

// launch runs the hook of a just-started operation in the server and ssh
// modes; in agent mode the agent sees it in its work poll.
func (d *dispatcher) launch(ctx context.Context, op *model.ProvOp, hook *model.Hook) {
	if op.Mode == model.ProvModeAgent {
		return
	}
	deadline := time.Unix(op.Started+op.Alarm, 0)
	hctx, cancel := context.WithDeadline(ctx, deadline)
	d.mu.Lock()
	d.local[op.Host] = cancel
	d.mu.Unlock()
	h := *hook
	h.Alarm = max(1, int(time.Until(deadline).Seconds()))
	ev := hooks.Event{Type: "provision", Requestor: serverUser(), Vnode: op.Vnodes[0], Vnodes: op.Vnodes, AOE: op.AOE}
	go func() {
		defer d.cancelLocal(op.Host)
		var kind string
		var exit int
		var msg string
		if op.Mode == model.ProvModeSSH {
			kind, exit, msg = d.s.runSSHProvision(hctx, &h, ev, op.Host)
		} else {
			out := d.s.hookRunner().Run(hctx, &h, ev, nil)
			kind, exit = hooks.ProvisionOutcome(out)
			msg = strings.TrimSpace(out.Message + " " + out.Stderr)
		}
		if kind == hooks.ProvAbandoned {
			return
		}
		d.s.logProvisionFailure(op, kind, exit, msg)
		d.report(op.Host, op.Attempt, kind, exit, msg)
	}()
}

// logProvisionFailure writes OpenPBS's server log line for an operation
// that did not succeed: "timed out" when its hook was killed at the alarm
// (by the hook runner or by the alarm watch, whichever came first), the
// exit status otherwise. A success (exit 0 or 1) logs nothing here.
func (s *Server) logProvisionFailure(op *model.ProvOp, kind string, exit int, msg string) {
	if kind == raftstore.ProvHookExited && (exit == 0 || exit == 1) {
		return
	}
	for _, vn := range op.Vnodes {
		if kind == raftstore.ProvTimedOut {
			s.logger.Printf("%s;Provisioning of %s with %s for %s timed out", op.JobID, vn, op.AOE, op.JobID)
			continue
		}
		s.logger.Printf("%s;Provisioning of %s with %s for %s failed, provisioning exit status=%d %s", op.JobID, vn, op.AOE, op.JobID, exit, msg)
	}
}

func (d *dispatcher) cancelLocal(host string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cancel, ok := d.local[host]; ok {
		cancel()
		delete(d.local, host)
	}
}

func (d *dispatcher) report(host string, attempt int, kind string, exit int, msg string) {
	_, err := d.s.apply(&raftstore.ProvisionResult{Host: host, Attempt: attempt, Kind: kind, Exit: exit, Message: msg, Now: d.s.now().Unix()})
	if err != nil {
		d.s.logger.Printf("provisioning result of %s: %v", host, err)
	}
}

// logOutcomes writes PBS's log lines for operations that ended since the
// last step: success when the host's vnodes are on the AOE, failure when
// they were offlined.
func (d *dispatcher) logOutcomes(snap *raftstore.StateSnapshot, ops []*model.ProvOp) {
	now := map[string]*model.ProvOp{}
	for _, op := range ops {
		now[op.Host] = op
	}
	for host, op := range d.seen {
		if _, ok := now[host]; ok || op.State == model.ProvWaiting {
			continue
		}
		for _, vn := range op.Vnodes {
			v := snap.Vnode(vn)
			switch {
			case v == nil:
			case v.CurrentAOE == op.AOE && v.State&model.NodeOffline == 0:
				d.s.logger.Printf("%s;Provisioning of Vnode %s successful", op.JobID, vn)
			case v.State&model.NodeOffline != 0:
				d.s.logger.Printf("%s;Vnode %s: %s", op.JobID, vn, v.Comment)
			default:
				d.s.logger.Printf("%s;Provisioning of Vnode %s ended without the AOE (provisioning could not start)", op.JobID, vn)
			}
		}
		if op.JobID != "" {
			if j := snap.Job(op.JobID); j != nil {
				switch {
				case j.Substate == model.SubPrerun || j.Substate == model.SubRunning:
					d.s.logger.Printf("%s;Provisioning for Job %s succeeded, running job", j.ID, j.ID)
				case j.State == model.StateHeld:
					d.s.logger.Printf("%s;Provisioning for job %s failed, job held", j.ID, j.ID)
				case j.State == model.StateQueued:
					d.s.logger.Printf("%s;Provisioning for job %s failed, job queued", j.ID, j.ID)
				}
			}
		}
	}
	d.seen = now
}
