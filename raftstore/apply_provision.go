package raftstore

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// Provisioning in the FSM. A job whose run decision marks vnodes with an
// AOE (exec_vnode ":aoe=X") enters R substate 71; every host to provision
// gets one operation (all its vnodes, one hook run) that waits for a slot
// of max_concurrent_provision. The leader's dispatcher starts operations
// and reports hook results; completion of OS provisioning is the host's
// agent registering with a new boot id. Everything here is deterministic:
// times come in the commands.

const provAverageWeight = 4 // moving average: new = (3*old + sample) / 4

func (w *writer) provOp(host string) *model.ProvOp {
	return first[model.ProvOp](w.txn, tableProvOps, "id", host)
}

// queueProvOp stores a new waiting operation for a host (owned by a job or
// a reservation) and marks its vnodes wait-provisioning.
func (w *writer) queueProvOp(op *model.ProvOp, vs []*model.Vnode, now int64) {
	op.State, op.Queued = model.ProvWaiting, now
	for _, v := range vs {
		op.Vnodes = append(op.Vnodes, v.Name)
		v = v.Copy()
		v.State |= model.NodeWaitProvisioning
		v.LastStateChange = now
		w.putVnode(v)
	}
	sortStrings(op.Vnodes)
	w.putProvOp(op)
}

func (w *writer) putProvOp(op *model.ProvOp) {
	w.must(w.txn.Insert(tableProvOps, op))
	w.touch(tableProvOps)
	// The host's agent learns of its operation through its work poll.
	w.touchHost(op.Host)
}

func (w *writer) deleteProvOp(op *model.ProvOp) {
	w.must(w.txn.Delete(tableProvOps, op))
	w.touch(tableProvOps)
	w.touchHost(op.Host)
}

func (w *writer) provOpsOfJob(id string) []*model.ProvOp {
	it, _ := w.txn.Get(tableProvOps, "job", id)
	var out []*model.ProvOp
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.ProvOp))
	}
	sortProvOps(out)
	return out
}

func (w *writer) provOpsAll() []*model.ProvOp {
	it, _ := w.txn.Get(tableProvOps, "id")
	var out []*model.ProvOp
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.ProvOp))
	}
	return out
}

// refuseProvisioning is PBS's rule for a job in substate 71: qhold, qalter,
// qsig and qdel without -W force get "Request invalid for state of job".
func refuseProvisioning(j *model.Job, force bool) error {
	if j.State == model.StateRunning && j.Substate == model.SubProvisioning && !force {
		return model.Err(model.PBSEBadState)
	}
	return nil
}

// provHosts returns the hosts a run decision marks for provisioning, in
// exec order, and the AOE.
func provHosts(r *model.RunDecision) ([]string, string, error) {
	var hosts []string
	seen := map[string]bool{}
	aoe := ""
	for _, ec := range r.Exec {
		for _, s := range ec.Shares {
			if s.AOE == "" {
				continue
			}
			if aoe != "" && s.AOE != aoe {
				return nil, "", fmt.Errorf("two AOEs")
			}
			aoe = s.AOE
			if !seen[s.Host] {
				seen[s.Host] = true
				hosts = append(hosts, s.Host)
			}
		}
	}
	return hosts, aoe, nil
}

// provisionCheckRun validates the provisioning part of a run decision
// before anything changes. ok false skips the decision; hold also holds
// the job (an AOE a vnode does not offer: qrun -H onto the wrong vnode).
func (w *writer) provisionCheckRun(j *model.Job, r *model.RunDecision) (ok, hold bool) {
	hosts, aoe, err := provHosts(r)
	if err != nil {
		return false, true
	}
	for _, h := range hosts {
		vs := w.vnodesOnHost(h)
		if w.provOp(h) != nil {
			return false, false
		}
		for _, v := range vs {
			if !inAOEList(v.Available["aoe"], aoe) && w.sharesVnode(r, v.Name) {
				return false, true
			}
			// One host, one unit: nothing may run on it while it is
			// reimaged (the scheduler checked the same on its snapshot).
			if len(v.Jobs) > 0 || v.State&runBlockers(j) != 0 {
				return false, false
			}
		}
	}
	return true, false
}

func (w *writer) sharesVnode(r *model.RunDecision, name string) bool {
	for _, ec := range r.Exec {
		for _, s := range ec.Shares {
			if s.Vnode == name && s.AOE != "" {
				return true
			}
		}
	}
	return false
}

func inAOEList(list, aoe string) bool {
	for _, a := range splitComma(list) {
		if a == aoe {
			return true
		}
	}
	return false
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// provisionEnqueue turns a started job (a copy, about to be stored) into a
// provisioning one when some of its hosts are not on the AOE yet.
func (w *writer) provisionEnqueue(j *model.Job, now int64) {
	hosts, aoe, _ := provHosts(&model.RunDecision{Exec: j.Exec})
	seq := int64(w.index) << 16
	var queued []string
	for i, h := range hosts {
		vs := w.vnodesOnHost(h)
		onAOE := len(vs) > 0
		for _, v := range vs {
			onAOE = onAOE && v.CurrentAOE == aoe
		}
		if onAOE {
			continue
		}
		w.queueProvOp(&model.ProvOp{Host: h, AOE: aoe, JobID: j.ID, Seq: seq + int64(i)}, vs, now)
		queued = append(queued, h)
	}
	if len(queued) == 0 {
		return
	}
	j.Substate = model.SubProvisioning
	w.note(j, now, "Provisioning of hosts %v with AOE %s queued", queued, aoe)
	w.acctProvStart(j, now)
	w.bumpEpoch()
}

// provisionStart moves a waiting operation to running.
func (w *writer) provisionStart(c *ProvisionStart) any {
	op := w.provOp(c.Host)
	if op == nil || op.State != model.ProvWaiting {
		return &ProvisionStartResult{}
	}
	running := 0
	for _, o := range w.provOpsAll() {
		if o.State != model.ProvWaiting {
			running++
		}
	}
	if int64(running) >= w.meta().Config.ProvisionConcurrency() {
		return &ProvisionStartResult{}
	}
	op = op.Copy()
	op.State, op.Started, op.Mode, op.Alarm = model.ProvRunning, c.Now, c.Mode, c.Alarm
	op.Attempt++
	op.HookExit, op.Rebooted, op.ReportedAOE, op.Detects = nil, false, "", false
	for _, name := range op.Vnodes {
		v := w.vnode(name)
		if v == nil {
			continue
		}
		op.BootID = v.BootID
		v = v.Copy()
		v.State = v.State&^model.NodeWaitProvisioning | model.NodeProvisioning
		v.LastStateChange = c.Now
		// PBS clears current_aoe when provisioning starts.
		v.CurrentAOE = ""
		if v.Admin != nil {
			delete(v.Admin, "current_aoe")
		}
		w.putVnode(v)
	}
	w.putProvOp(op)
	if j := w.job(op.JobID); j != nil {
		j = j.Copy()
		w.note(j, c.Now, "Provisioning vnode(s) %v of host %s with AOE %s started", op.Vnodes, op.Host, op.AOE)
		w.putJob(j)
	}
	return &ProvisionStartResult{Op: op.Copy()}
}

// provisionResult applies a hook's outcome.
func (w *writer) provisionResult(c *ProvisionResult) any {
	op := w.provOp(c.Host)
	if op != nil && op.State == model.ProvWaiting && c.Kind == ProvNotStarted {
		w.provisionFailed(op, false, true, c.Now) // no hook: it cannot start
		return nil
	}
	if op == nil || op.Attempt != c.Attempt || op.State == model.ProvWaiting {
		return nil // stale or repeated report
	}
	switch {
	case c.Kind == ProvHookExited && c.Exit == 1:
		w.provisionSucceeded(op, c.Now)
	case c.Kind == ProvHookExited && c.Exit == 0:
		if op.HookExit != nil {
			return nil
		}
		op = op.Copy()
		zero := 0
		op.HookExit, op.State = &zero, model.ProvRebooting
		if op.Rebooted {
			w.provisionRebooted(op, c.Now)
			return nil
		}
		w.putProvOp(op)
	case c.Kind == ProvNotStarted:
		w.provisionFailed(op, false, true, c.Now)
	default: // another exit status, or the alarm
		w.provisionFailed(op, true, false, c.Now)
	}
	return nil
}

// provisionRegistered notes a host's registration: with a new boot id it
// completes (or fails, on an AOE mismatch) an OS provisioning whose hook
// has exited 0; otherwise it is remembered until the hook's result comes.
// Outside provisioning, an agent that detects its image sets current_aoe.
func (w *writer) provisionRegistered(c *RegisterHost) {
	op := w.provOp(c.Host)
	if op == nil || op.State == model.ProvWaiting {
		if c.ImageAOE != nil {
			for _, v := range w.vnodesOnHost(c.Host) {
				if v.State&(model.NodeWaitProvisioning|model.NodeProvisioning) != 0 || v.CurrentAOE == *c.ImageAOE {
					continue
				}
				v = v.Copy()
				v.CurrentAOE = *c.ImageAOE
				if _, ok := v.Admin["current_aoe"]; ok {
					v.Admin["current_aoe"] = *c.ImageAOE
				}
				w.putVnode(v)
			}
		}
		return
	}
	// While provisioning, current_aoe stays unset whatever the agent says.
	for _, v := range w.vnodesOnHost(c.Host) {
		if v.CurrentAOE != "" {
			v = v.Copy()
			v.CurrentAOE = ""
			w.putVnode(v)
		}
	}
	if c.BootID == op.BootID || op.Rebooted {
		return
	}
	op = op.Copy()
	op.Rebooted = true
	if c.ImageAOE != nil {
		op.Detects, op.ReportedAOE = true, *c.ImageAOE
	}
	if op.HookExit != nil && *op.HookExit == 0 {
		w.provisionRebooted(op, c.Now)
		return
	}
	w.putProvOp(op)
}

// provisionRebooted completes an OS provisioning: the hook exited 0 and
// the host came back with a new boot id.
func (w *writer) provisionRebooted(op *model.ProvOp, now int64) {
	if op.Detects && op.ReportedAOE != op.AOE {
		w.provisionMismatch(op, now)
		return
	}
	w.provisionSucceeded(op, now)
}

// provisionSucceeded sets current_aoe on the host's vnodes, learns the
// duration and starts the job when it waits for no other host.
func (w *writer) provisionSucceeded(op *model.ProvOp, now int64) {
	for _, name := range op.Vnodes {
		v := w.vnode(name)
		if v == nil {
			continue
		}
		v = v.Copy()
		v.State &^= model.NodeProvisioning | model.NodeWaitProvisioning
		v.CurrentAOE = op.AOE
		if v.Admin == nil {
			v.Admin = map[string]string{}
		}
		v.Admin["current_aoe"] = op.AOE // survives the agent's re-registration
		v.LastStateChange = now
		v.RecomputeBusy()
		w.putVnode(v)
	}
	w.learn(op, true, now)
	w.deleteProvOp(op)
	w.bumpEpoch()
	j := w.job(op.JobID)
	if j == nil || j.Substate != model.SubProvisioning {
		return
	}
	j = j.Copy()
	w.note(j, now, "Provisioning of host %s with AOE %s successful", op.Host, op.AOE)
	if len(w.provOpsOfJob(j.ID)) == 0 {
		// OpenPBS's pending hook copy check is the mother superior
		// agent's start gate: it starts the job only with the current
		// agent hooks (mom/hooks.go, hooksReadyLocked).
		j.Substate = model.SubPrerun
		j.Mtime = now
		w.note(j, now, "Provisioning for Job %s succeeded, running job", j.ID)
		w.acctProvEnd(j, true, now)
	}
	w.putJob(j)
}

// provisionFailed ends an operation that failed. offline: the hook failed
// or timed out (the vnodes are offlined, the job requeued); hold: it could
// not start (the job is held, the vnodes stay usable).
func (w *writer) provisionFailed(op *model.ProvOp, offline, hold bool, now int64) {
	offlineComment := ""
	if offline {
		offlineComment = model.MsgVnodeProvFailed
	}
	w.releaseProvisionVnodes(op, offlineComment, now)
	w.learn(op, false, now)
	w.deleteProvOp(op)
	w.bumpEpoch()
	j := w.job(op.JobID)
	if j == nil || j.Substate != model.SubProvisioning {
		return
	}
	if hold {
		w.provisionHoldUnstarted(j, "Provisioning for job "+j.ID+" failed, job held", now)
		return
	}
	w.acctProvEnd(j, false, now)
	j = j.Copy()
	w.requeue(j, "Provisioning for job "+j.ID+" failed, job queued", now)
}

// releaseProvisionVnodes takes an ended operation's vnodes out of the
// provisioning states; with a comment they also go offline with current_aoe
// unset (their image is unknown), as OpenPBS does on failure.
func (w *writer) releaseProvisionVnodes(op *model.ProvOp, offlineComment string, now int64) {
	for _, name := range op.Vnodes {
		v := w.vnode(name)
		if v == nil {
			continue
		}
		v = v.Copy()
		v.State &^= model.NodeProvisioning | model.NodeWaitProvisioning
		if offlineComment != "" {
			v.State |= model.NodeOffline
			v.Comment = offlineComment
			v.CurrentAOE = ""
			if v.Admin != nil {
				delete(v.Admin, "current_aoe")
			}
		}
		v.LastStateChange = now
		v.RecomputeBusy()
		w.putVnode(v)
	}
}

// provisionMismatch: the host came back on another AOE than requested. The
// vnodes are offlined and the job is held, as OpenPBS does for an AOE
// mis-match.
func (w *writer) provisionMismatch(op *model.ProvOp, now int64) {
	w.releaseProvisionVnodes(op, model.MsgVnodeProvMismatch, now)
	w.learn(op, false, now)
	w.deleteProvOp(op)
	w.bumpEpoch()
	if j := w.job(op.JobID); j != nil && j.Substate == model.SubProvisioning {
		w.provisionHoldUnstarted(j, "provisioning error: AOE mis-match", now)
	}
}

// provisionHoldUnstarted holds a job whose provisioning could not start
// (or ended on the wrong AOE): resources released, system hold, PBS's
// comment.
func (w *writer) provisionHoldUnstarted(j *model.Job, why string, now int64) {
	if j.Substate == model.SubProvisioning {
		w.acctProvEnd(j, false, now)
	}
	if j.IsRunning() {
		w.release(j, now)
	}
	j = j.Copy()
	j.State, j.Substate = model.StateHeld, model.SubHeld
	j.Hold = addHold(j.Hold, "s")
	j.Exec = nil
	j.SetMSHost("")
	j.SetExclusive(false)
	j.Mtime = now
	j.Comment = model.MsgProvFailedStart
	w.note(j, now, "%s", why)
	w.putJob(j)
}

// provisionDetach is called whenever a job gives its vnodes back (end,
// qdel -W force, requeue, hold): its waiting operations are dropped and
// its started ones carry on without it (the node is mid-change; they end
// with the host on the new AOE, or offline).
func (w *writer) provisionDetach(j *model.Job, now int64) {
	for _, op := range w.provOpsOfJob(j.ID) {
		if op.State != model.ProvWaiting {
			op = op.Copy()
			op.JobID = ""
			w.putProvOp(op)
			continue
		}
		for _, name := range op.Vnodes {
			if v := w.vnode(name); v != nil && v.State&model.NodeWaitProvisioning != 0 {
				v = v.Copy()
				v.State &^= model.NodeWaitProvisioning
				v.LastStateChange = now
				w.putVnode(v)
			}
		}
		w.deleteProvOp(op)
	}
}

// learn records an operation's outcome for estimates and insight.
func (w *writer) learn(op *model.ProvOp, ok bool, now int64) {
	key := model.ProvStatKey(op.Host, op.AOE)
	st := &model.ProvStat{Key: key, Host: op.Host, AOE: op.AOE}
	if raw, _ := w.txn.First(tableProvStats, "id", key); raw != nil {
		c := *raw.(*model.ProvStat)
		st = &c
	}
	if op.Started > 0 && op.Started >= op.Queued {
		st.WaitSecs += op.Started - op.Queued
	}
	if ok {
		d := now - op.Started
		if d < 0 {
			d = 0
		}
		if st.Successes == 0 {
			st.MeanSecs = d
		} else {
			st.MeanSecs = ((provAverageWeight-1)*st.MeanSecs + d) / provAverageWeight
		}
		st.LastSecs = d
		st.Successes++
	} else {
		st.Failures++
	}
	st.LastEnded = now
	w.must(w.txn.Insert(tableProvStats, st))
	w.touch(tableProvStats)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for k := i; k > 0 && naturalLess(s[k], s[k-1]); k-- {
			s[k], s[k-1] = s[k-1], s[k]
		}
	}
}
