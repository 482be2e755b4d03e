package raftstore

import (
	"fmt"
	"strings"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// Accounting records are made by the FSM from committed transitions and
// kept in a bounded replicated table (the last maxAcctRecords). Each
// server's accounting writer (server/accounting.go) appends the records it
// has not written yet to its own <data_dir>/accounting/YYYYMMDD and
// persists the last Seq it wrote; a record's Seq is the same on every
// server, so no leader change, restart or snapshot restore loses or
// repeats one (unless a server falls more than maxAcctRecords behind, which
// its writer detects and logs).

const tableAcct = "acct"

// maxAcctRecords bounds the replicated accounting table.
const maxAcctRecords = 10000

// account adds one record made by the entry being applied.
func (w *writer) account(now int64, typ, id, format string, args ...any) {
	w.acctN++
	r := &model.AcctRecord{Seq: w.index<<16 | w.acctN, Time: now, Type: typ, ID: id, Msg: fmt.Sprintf(format, args...)}
	w.must(acctAppend(w.txn, r)) // acct_chunks.go
}

// flushAcct counts the entry's records and trims the oldest beyond the
// bound; ApplyBatch calls it after each entry.
func (w *writer) flushAcct() {
	if w.acctN == 0 {
		return
	}
	m := w.meta()
	m.AcctCount += int(w.acctN)
	for m.AcctCount > maxAcctRecords {
		r, err := acctTrimOldest(w.txn)
		w.must(err)
		if r == nil {
			m.AcctCount = 0
			break
		}
		m.AcctTrimmed = r.Seq
		m.AcctCount--
	}
	w.putMeta(m)
	w.touch(tableAcct)
}

// acctIdentity is the user part PBS writes in S, E, R, P and p records.
func acctIdentity(j *model.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "user=%s group=%s", model.AcctValue(j.User), model.AcctValue(j.Group))
	if j.Account != "" {
		fmt.Fprintf(&b, " account=%s", model.AcctValue(j.Account))
	}
	project := j.Project
	if project == "" {
		project = "_pbs_project_default"
	}
	fmt.Fprintf(&b, " project=%s jobname=%s queue=%s", model.AcctValue(project), model.AcctValue(j.Name), j.Queue)
	return b.String()
}

// acctRun is the run part of S, E and R records: times, placement,
// requested resources and session.
func (w *writer) acctRun(j *model.Job) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s ctime=%d qtime=%d etime=%d start=%d", acctIdentity(j), j.Ctime, j.Qtime, j.Etime, j.Stime)
	if len(j.Exec) > 0 {
		fmt.Fprintf(&b, " exec_host=%s exec_vnode=%s", j.ExecHost(), j.ExecVnode(w.meta().Config.Defs))
	}
	for _, k := range model.SortedKeys(j.ResourceList) {
		fmt.Fprintf(&b, " Resource_List.%s=%s", k, model.AcctValue(j.ResourceList[k]))
	}
	if j.SessionID != 0 {
		fmt.Fprintf(&b, " session=%d", j.SessionID)
	}
	return b.String()
}

func acctUsed(j *model.Job) string {
	var b strings.Builder
	for _, k := range model.SortedKeys(j.Used) {
		fmt.Fprintf(&b, " resources_used.%s=%s", k, model.AcctValue(j.Used[k]))
	}
	return b.String()
}

// acctQueued: Q, at submission.
func (w *writer) acctQueued(j *model.Job, now int64) {
	w.account(now, model.AcctQueued, j.ID, "queue=%s", j.Queue)
}

// acctStarted: S, when the job's agent started it (substate 42).
func (w *writer) acctStarted(j *model.Job, now int64) {
	w.account(now, model.AcctStarted, j.ID, "%s", w.acctRun(j))
}

// acctEnded: E, when a job that ran ends (j before its vnodes are
// released, with its exit status and usage set).
func (w *writer) acctEnded(j *model.Job, exit int, now int64) {
	w.account(now, model.AcctEnded, j.ID, "%s end=%d Exit_status=%d%s run_count=%d", w.acctRun(j), now, exit, acctUsed(j), j.RunCount)
}

// acctDeleted: D, at a qdel.
func (w *writer) acctDeleted(id, requestor string, now int64) {
	w.account(now, model.AcctDeleted, id, "requestor=%s", requestor)
}

// acctRerun: R, when a job that held vnodes goes back to the queue
// (qrerun, node failure, failed provisioning).
func (w *writer) acctRerun(j *model.Job, now int64) {
	w.account(now, model.AcctRerun, j.ID, "%s end=%d%s run_count=%d", w.acctRun(j), now, acctUsed(j), j.RunCount)
}

// acctProvVnodes is PBS's prov_vnode: "vn1:aoe=X+vn2:aoe=X", the vnodes
// the run decision marked for provisioning.
func acctProvVnodes(j *model.Job) string {
	var out []string
	for _, ec := range j.Exec {
		for _, s := range ec.Shares {
			if s.AOE != "" {
				out = append(out, s.Vnode+":aoe="+s.AOE)
			}
		}
	}
	return strings.Join(out, "+")
}

// acctProvStart: P, when the job enters substate 71.
func (w *writer) acctProvStart(j *model.Job, now int64) {
	w.account(now, model.AcctProvStart, j.ID, "%s provision_vnode=%s provision_event=START start_time=%d", acctIdentity(j), acctProvVnodes(j), now)
}

// acctProvEnd: p, when the job leaves substate 71 (all hosts done, or a
// failure that requeues or holds it).
func (w *writer) acctProvEnd(j *model.Job, ok bool, now int64) {
	status := "FAILURE"
	if ok {
		status = "SUCCESS"
	}
	w.account(now, model.AcctProvEnd, j.ID, "%s provision_vnode=%s provision_event=END status=%s end_time=%d", acctIdentity(j), acctProvVnodes(j), status, now)
}

// AcctRecords returns up to limit records with Seq > after, oldest first.
func (s *StateSnapshot) AcctRecords(after uint64, limit int) []*model.AcctRecord {
	return acctAfter(s.txn, after, limit)
}

// AcctTrimmed is the Seq of the last record dropped from the bounded
// table (0 when none was): a writer that has not written up to it missed
// records.
func (s *StateSnapshot) AcctTrimmed() uint64 { return s.meta().AcctTrimmed }

// AcctWatch fires when records are added.
func (s *StateSnapshot) AcctWatch() memdb.WatchSet {
	ws := memdb.NewWatchSet()
	if ch, _, err := s.txn.FirstWatch(tableIndexes, "id", tableAcct); err == nil {
		ws.Add(ch)
	}
	return ws
}

func (s *StateSnapshot) persistAcct(write func(kind string, v any) error) error {
	for _, r := range s.AcctRecords(0, maxAcctRecords+1) {
		if err := write("acct", r); err != nil {
			return err
		}
	}
	return nil
}
