package raftstore

import (
	"fmt"
	"strings"
	"time"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// writer applies commands inside one write transaction. Objects read from
// the transaction are shared with readers, so every change copies first.
type writer struct {
	txn   *memdb.Txn
	index uint64
	// pack shares the repeated parts of stored jobs (compact.go); nil
	// stores jobs as they are.
	pack *compactor
	// tokens finds a submission's earlier job by its token (tokens.go).
	tokens *tokenIndex
	// acctN counts the accounting records the entry made (accounting.go).
	acctN uint64
	// events are the entry's lines for the servers' event logs, handed
	// to the FSM's sink once the entry is committed (eventlog.go).
	events []model.LogEvent
	// appended is when the leader appended the entry (replicated with
	// it), the time of event-log lines whose command carries none.
	appended int64
	// endReported is the job whose end its own agent is reporting while
	// the entry applies it: the run leaving that host's list does not
	// wake the agent (workview.go).
	endReported string
}

func newJob() *model.Job     { return &model.Job{} }
func newVnode() *model.Vnode { return &model.Vnode{} }

func (w *writer) apply(cmd Command) any {
	switch c := cmd.(type) {
	case *SubmitJob:
		return w.submit(c)
	case *ServerInfo:
		return w.serverInfo(c)
	case *Fairshare:
		return w.fairshare(c)
	case *ApplyPlan:
		return w.plan(c)
	case *RegisterHost:
		return w.register(c)
	case *HostDown:
		return w.hostDown(c)
	case *JobEvents:
		return w.jobEvents(c)
	case *DeleteJob:
		return w.deleteJob(c)
	case *RequeueJobs:
		return w.requeueJobs(c)
	case *PurgeHistory:
		return w.purge(c)
	case *SetServerConfig:
		return w.setConfig(c)
	case *HoldJob:
		return w.holdJob(c)
	case *ReleaseJob:
		return w.releaseJob(c)
	case *HoldJobs:
		return w.holdJobs(c)
	case *ReleaseJobs:
		return w.releaseJobs(c)
	case *DeleteJobs:
		return w.deleteJobs(c)
	case *AlterJob:
		return w.alterJob(c)
	case *SignalJob:
		return w.signalJob(c)
	case *MoveJob:
		return w.moveJob(c)
	case *RerunJob:
		return w.rerunJob(c)
	case *RunJobNow:
		return w.runJobNow(c)
	case *ReleaseWaiting:
		return w.releaseWaiting(c)
	case *MarkVnodes:
		return w.markVnodes(c)
	case *Manage:
		return w.manage(c)
	case *OrderJobs:
		return w.orderJobs(c)
	case *ProvisionStart:
		return w.provisionStart(c)
	case *ProvisionResult:
		return w.provisionResult(c)
	case *SubmitResv:
		return w.submitResv(c)
	case *ResvEvent:
		return w.resvEvent(c)
	case *DeleteResv:
		return w.deleteResv(c)
	case *AlterResv:
		return w.alterResv(c)
	}
	return fmt.Errorf("no handler for %s", cmd.Type())
}

// --- small helpers --------------------------------------------------------

func (w *writer) meta() *meta {
	raw, _ := w.txn.First(tableMeta, "id", "meta")
	if raw == nil {
		return &meta{ID: "meta"}
	}
	m := *raw.(*meta)
	return &m
}

func (w *writer) putMeta(m *meta) { w.must(w.txn.Insert(tableMeta, m)) }

// job returns a job by id: its row, or a finished subjob rebuilt from its
// compact record (subjob_history.go).
func (w *writer) job(id string) *model.Job {
	if j := w.jobRow(id); j != nil || strings.IndexByte(id, '[') < 0 {
		return j
	}
	if r := w.finishedSubjobRecord(id); r != nil {
		return joinSubjob(r)
	}
	return nil
}

func (w *writer) jobRow(id string) *model.Job {
	return first[model.Job](w.txn, tableJobs, "id", id)
}

func (w *writer) vnode(name string) *model.Vnode {
	return first[model.Vnode](w.txn, tableVnodes, "id", name)
}

func (w *writer) putJob(j *model.Job) {
	old := w.job(j.ID)
	if old != nil && old.MSHost() != j.MSHost() {
		w.leftHost(j.ID, old.MSHost())
	}
	if agentSeesChange(old, j) { // workview.go
		w.touchHost(j.MSHost())
	}
	if w.pack != nil {
		w.pack.job(j)
		if isFinishedSubjob(j) {
			w.putFinishedSubjob(j)
			return
		}
	}
	w.must(moveStateGroups(w.txn, w.jobRow(j.ID), j))
	if j.IsSubjob() {
		if r := w.finishedSubjobRecord(j.ID); r != nil {
			w.must(deleteDone(w.txn, r.ID))
		}
	}
	w.must(w.txn.Insert(tableJobs, j))
	w.touch(tableJobs)
}

func (w *writer) deleteJobRow(j *model.Job) {
	if r := w.finishedSubjobRecord(j.ID); r != nil {
		w.leftHost(j.ID, r.MSHost)
		w.must(deleteDone(w.txn, r.ID))
		w.touch(tableJobs)
		return
	}
	if old := w.jobRow(j.ID); old != nil {
		w.leftHost(j.ID, old.MSHost())
		w.tokens.dropLater(old)
		w.must(moveStateGroups(w.txn, old, nil))
	}
	w.must(w.txn.Delete(tableJobs, j))
	w.touch(tableJobs)
}

// touchHost moves the work index of a mother superior host, which wakes
// exactly that host's agent from its long poll.
func (w *writer) touchHost(host string) {
	if host != "" {
		w.touch(HostWorkKey(host))
		w.touch(AnyHostWorkKey)
	}
}

func (w *writer) putVnode(v *model.Vnode) {
	w.vnodeStateEvent(w.vnode(v.Name), v)
	w.must(w.txn.Insert(tableVnodes, v))
	w.touch(tableVnodes)
}

func (w *writer) touch(table string) {
	w.must(w.txn.Insert(tableIndexes, &tableIndex{Table: table, Index: w.index}))
}

func (w *writer) bumpEpoch() {
	m := w.meta()
	m.Epoch++
	w.putMeta(m)
}

func (w *writer) must(err error) {
	if err != nil {
		// memdb only fails on schema violations: a programming error.
		panic(fmt.Sprintf("raftstore: state store write at index %d: %v", w.index, err))
	}
}

func (w *writer) jobsOnHost(host string) []*model.Job {
	it, _ := w.txn.Get(tableJobs, "ms", host)
	var out []*model.Job
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Job))
	}
	return out
}

func (w *writer) vnodesOnHost(host string) []*model.Vnode {
	it, _ := w.txn.Get(tableVnodes, "host", host)
	var out []*model.Vnode
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*model.Vnode))
	}
	return out
}

// pbsTime formats a time the way the server writes it into comments
// ("Mon Jun 02 at 10:00").
func pbsTime(now int64) string {
	return time.Unix(now, 0).Format("Mon Jan 02 at 15:04")
}

// --- submit ---------------------------------------------------------------

func (w *writer) submit(c *SubmitJob) any {
	if err := checkSubmitBounds(c.Job, &w.meta().Config); err != nil {
		return err
	}
	if c.Job.Token != "" {
		if j := w.jobByToken(c.Job.Token); j != nil {
			return j.ID
		}
	}
	// Dependencies are checked before anything changes: a refused job
	// must not use up a sequence number.
	pending, before, err := w.resolveDeps(c.Job.Deps())
	if err != nil {
		return err
	}
	m := w.meta()
	// The job was decoded from this entry (applyEntry decodes again if
	// the entry is applied again): it is the writer's own, stored as it
	// is. A Copy left the decoded row behind as garbage of the same size
	// class as the stored one, so a burst of submissions left each span of
	// rows half empty once collected (about 700 bytes per queued job).
	j := c.Job
	j.SetDeps(pending)
	j.Seq = m.NextSeq
	j.ID = model.FormatJobID(j.Seq, m.Config.Name)
	rank := j.Seq
	j.Rank = &rank
	if j.Array != nil {
		j.ID = model.FormatArrayID(j.Seq, m.Config.Name)
		initArray(j)
	}
	j.Server = m.Config.Name
	m.NextSeq++
	if max := m.Config.MaxJobSequenceID; max > 0 && m.NextSeq > max {
		m.NextSeq = 0
	}
	w.putMeta(m)

	seq := model.SeqOf(j.ID)
	workdir := j.EnvValue("PBS_O_WORKDIR")
	suffix, dirID := "", j.ID
	if j.Array != nil {
		// Subjobs write <name>.o<seq>.<index>; NewSubjob fills the marker in.
		suffix = "." + model.ArrayIndexMarker
		dirID = model.SubjobID(j.ID, 0)
		dirID = strings.Replace(dirID, "[0]", "["+model.ArrayIndexMarker+"]", 1)
	}
	j.Output = defaultPath(j.Output, j.SubmitHost, workdir, j.Name+".o"+seq+suffix, dirID+".OU")
	j.Error = defaultPath(j.Error, j.SubmitHost, workdir, j.Name+".e"+seq+suffix, dirID+".ER")
	j.Ctime, j.Qtime, j.Mtime, j.Etime = c.Now, c.Now, c.Now, c.Now
	if j.Hold == "" {
		j.Hold = "n"
	}
	if len(j.Deps()) > 0 {
		j.Hold = addHold(j.Hold, "s")
	}
	evalState(j, c.Now)
	j.Env = append(j.Env, model.EnvVar{Name: "PBS_O_QUEUE", Value: j.Queue})
	j.History = nil
	w.note(j, c.Now, "Job Queued at request of %s, owner = %s, job name = %s, queue = %s", j.Owner, j.Owner, j.Name, j.Queue)
	if j.State != model.StateQueued {
		w.note(j, c.Now, "Job state %s, substate %d", j.State, j.Substate)
	}
	w.putJob(j)
	w.tokens.add(j)
	w.acctQueued(j, c.Now)
	for _, d := range before {
		w.addBefore(j, d, c.Now)
	}
	return j.ID
}

// defaultPath fills in an output path: empty means the submission directory
// with the default name; a path ending in "/" names a directory, where PBS
// writes <jobid>.OU / .ER.
func defaultPath(p, host, workdir, name, dirName string) string {
	switch {
	case p == "":
		return host + ":" + workdir + "/" + name
	case p[len(p)-1] == '/':
		return p + dirName
	}
	return p
}

// --- scheduling plan ------------------------------------------------------

func (w *writer) plan(c *ApplyPlan) any {
	m := w.meta()
	// Reservation hook point (apply_resv.go): verdicts first, so that a
	// reservation confirmed in this plan is in place for its runs.
	w.resvDecisions(c.Resvs, c.Now)
	// Preemption hook point (apply_preempt.go): victims make room first.
	w.applyPreempts(c.Preempts, c.Now)
	w.applyResumes(c.Resumes, c.Now)
	started := 0
	for _, r := range c.Runs {
		if w.run(&r, c.Now) {
			started++
		}
	}
	for _, jc := range c.Comments {
		j := w.job(jc.JobID)
		if j == nil || !schedulable(j) {
			continue
		}
		j = j.Copy()
		j.Comment = jc.Comment
		if jc.NeverRun && c.Epoch == m.Epoch {
			j.SetNeverRunEpoch(c.Epoch)
		}
		w.putJob(j)
	}
	for _, e := range c.Estimates {
		j := w.job(e.JobID)
		if j == nil || !schedulable(j) {
			continue
		}
		j = j.Copy()
		j.SetEstStart(e.Start)
		j.SetEstExec(e.Exec)
		j.SetTopJob(e.Top)
		w.putJob(j)
	}
	for _, sw := range c.SoftWalltimes {
		// An extension only grows, and is more than the job's current
		// soft_walltime (a plan made before a qalter is stale).
		if j := w.job(sw.JobID); j != nil && j.IsRunning() && sw.Seconds > j.EstSoftWalltime() &&
			sw.Seconds > model.SoftWalltimeOf(j.ResourceList) {
			j = j.Copy()
			j.SetEstSoftWalltime(sw.Seconds)
			w.putJob(j)
		}
	}
	return started
}

// run applies one run decision if it still fits the state.
func (w *writer) run(r *model.RunDecision, now int64) bool {
	j := w.job(r.JobID)
	var parent *model.Job
	if j == nil {
		// A subjob starts: its record is made from the parent now.
		j, parent = w.pendingSubjob(r.JobID)
	}
	if j == nil || j.State != model.StateQueued || len(r.Exec) == 0 {
		return false
	}
	// Check every share against the current vnodes before changing any.
	need := map[string]map[string]float64{}
	for _, ec := range r.Exec {
		for _, s := range ec.Shares {
			if need[s.Vnode] == nil {
				need[s.Vnode] = map[string]float64{}
			}
			for k, v := range s.Amounts {
				need[s.Vnode][k] += v
			}
		}
	}
	vnodes := map[string]*model.Vnode{}
	for name, amounts := range need {
		v := w.vnode(name)
		if v == nil || v.State&runBlockers(j) != 0 {
			return false
		}
		if r.Exclusive && len(v.Jobs) > 0 {
			return false
		}
		for k, amt := range amounts {
			if v.Free(k) < amt {
				return false
			}
		}
		vnodes[name] = v
	}
	// Provisioning hook point (apply_provision.go): an AOE the vnode does
	// not offer holds the job; a host that cannot be provisioned now
	// skips the decision.
	if ok, hold := w.provisionCheckRun(j, r); !ok {
		if hold {
			w.provisionHoldUnstarted(j, "Job failed to start provisioning", now)
		}
		return false
	}
	for name, amounts := range need {
		v := vnodes[name].Copy()
		if v.Assigned == nil {
			v.Assigned = map[string]float64{}
		}
		for k, amt := range amounts {
			v.Assigned[k] += amt
		}
		if v.Jobs == nil {
			v.Jobs = map[string]int{}
		}
		v.Jobs[j.ID] += int(amounts["ncpus"])
		if r.Exclusive {
			v.ExclusiveJob = j.ID
		}
		v.LastUsed = now
		before := v.State
		v.RecomputeBusy()
		if v.State != before {
			v.LastStateChange = now
		}
		w.putVnode(v)
	}
	j = j.Copy()
	j.State, j.Substate = model.StateRunning, model.SubPrerun
	j.Exec = r.Exec
	j.SetExclusive(r.Exclusive)
	j.SetMSHost(r.Exec[0].Shares[0].Host)
	j.Stime, j.Mtime = now, now
	j.RunCount++
	j.Exit = nil
	j.Used = nil
	j.SessionID = 0
	j.SetNeverRunEpoch(0)
	j.Comment = ""
	j.Comment = fmt.Sprintf("Job run at %s on %s", pbsTime(now), j.ExecVnode(w.meta().Config.Defs))
	w.note(j, now, "Job Run at request of Scheduler on exec_vnode %s", j.ExecVnode(w.meta().Config.Defs))
	w.provisionEnqueue(j, now) // provisioning hook point: R substate 71 when vnodes need it
	w.putJob(j)
	w.resvFromJob(j, now) // qsub -W create_resv_from_job (apply_resv_job.go)
	if parent != nil {
		w.subjobStarted(parent, j, now)
	}
	w.parentChanged(j, now) // releases "after" dependents
	return true
}

// release gives a job's vnode resources back.
func (w *writer) release(j *model.Job, now int64) {
	w.provisionDetach(j, now) // provisioning hook point: the job no longer waits for its hosts
	for _, name := range j.Vnodes() {
		v := w.vnode(name)
		if v == nil {
			continue
		}
		v = v.Copy()
		for _, ec := range j.Exec {
			for _, s := range ec.Shares {
				if s.Vnode != name {
					continue
				}
				for k, amt := range s.Amounts {
					v.Assigned[k] -= amt
					if v.Assigned[k] <= 0 {
						delete(v.Assigned, k)
					}
				}
			}
		}
		delete(v.Jobs, j.ID)
		if v.ExclusiveJob == j.ID {
			v.ExclusiveJob = ""
		}
		before := v.State
		v.RecomputeBusy()
		if v.State != before {
			v.LastStateChange = now
		}
		w.putVnode(v)
	}
}
