package raftstore

import (
	"reflect"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// Finished subjobs as compact records.
//
// A subjob gets a full job row when it starts (apply_array.go). Kept as
// history in the jobs table, each finished one cost a model.Job of its own
// and four go-memdb index entries (id, state, ms, array): about 7 KB of
// live heap, 15 KB of RSS, 1.5 GB after a 100,000-subjob array. When a
// subjob finishes it now moves to tableSubjobsDone as a finishedSubjob:
// what is its own (times, exit status, resources_used, exec_vnode, its
// history lines, ...) plus a pointer to a template holding everything it
// shares with its siblings (the parent's request, Variable_List, paths
// with the index taken out), kept in chunks of 64 under its array
// (subjob_chunks.go), so no index entry of its own.
//
// Reading one back (joinSubjob) gives the same model.Job value that was
// stored, field for field: the template is the subjob itself with its own
// fields cleared, so whatever a field is (including ones added to
// model.Job later) it is either in the template or in the record, and a
// sibling shares a template only when the two are deeply equal. Sharing
// is a property of memory, not of values: two servers holding different
// templates hold equal jobs. The Raft log and snapshot formats are
// unchanged: a snapshot writes these subjobs as ordinary "job" records,
// and old snapshots and logs with full subjob rows load into compact
// records through the same path.
const tableSubjobsDone = "subjobs_done"

// finishedSubjob is one finished subjob. The fields after base are the
// model.Job fields a subjob's life sets (apply_lifecycle.go, apply.go
// run); splitSubjob and joinSubjob move exactly these. Those most subjobs
// never set are in rare, allocated when one is.
type finishedSubjob struct {
	ID   string
	base *model.Job // shared with siblings; never modified
	rare *rareSubjobFields

	ArrayIndex                    int64
	Output, Error                 string
	State, Hold, Comment, MSHost  string
	Substate, SessionID, RunCount int
	Ctime, Qtime, Mtime, Etime    int64
	Stime, Obit                   int64
	Exit                          *int
	Used                          map[string]string
	Exec                          []model.ExecChunk
	History                       []model.Event
	Rank                          *int64
	Exclusive                     bool
}

// rareSubjobFields are the subjob's own fields that a finished subjob
// usually has empty.
type rareSubjobFields struct {
	Stagein, Stageout                  string
	Deleter, Depend                    string
	InteractiveAddr, InteractiveCookie string
	EstStart                           int64
	EstExec                            []model.ExecChunk
	Signals                            []model.Sig
	Deps                               []model.Dep
	NeverRunEpoch                      uint64
	KillRequested, TopJob              bool
	RequeueOnEnd                       bool
}

// isFinishedSubjob reports whether j is stored as a compact record.
func isFinishedSubjob(j *model.Job) bool { return j.IsSubjob() && j.IsFinished() }

// splitSubjob moves j's own fields into a record; the rest of j (j is the
// caller's copy and is cleared in place) is the template.
func splitSubjob(j *model.Job) *finishedSubjob {
	r := &finishedSubjob{
		ID: j.ID, ArrayIndex: j.ArrayIndex(), Output: j.Output, Error: j.Error,
		State: j.State, Hold: j.Hold, Comment: j.Comment, MSHost: j.MSHost(),
		Substate: j.Substate, SessionID: j.SessionID, RunCount: j.RunCount,
		Ctime: j.Ctime, Qtime: j.Qtime, Mtime: j.Mtime, Etime: j.Etime, Stime: j.Stime, Obit: j.Obit(),
		Exit: j.Exit, Used: j.Used, Exec: j.Exec, History: j.History, Rank: j.Rank, Exclusive: j.Exclusive(),
	}
	rare := rareSubjobFields{
		Stagein: j.Stagein(), Stageout: j.Stageout(), Deleter: j.Deleter(), Depend: j.Depend(),
		InteractiveAddr: j.InteractiveAddr(), InteractiveCookie: j.InteractiveCookie(),
		EstStart: j.EstStart(), EstExec: j.EstExec(), Signals: j.Signals(), Deps: j.Deps(),
		NeverRunEpoch: j.NeverRunEpoch(), KillRequested: j.KillRequested(), TopJob: j.TopJob(),
		RequeueOnEnd: j.RequeueOnEnd(),
	}
	if !reflect.ValueOf(rare).IsZero() {
		r.rare = &rare
	}
	j.ID = ""
	j.SetArrayIndex(0)
	j.Output = ""
	j.Error = ""
	j.State = ""
	j.Hold = ""
	j.Comment = ""
	j.SetMSHost("")
	j.Substate, j.SessionID, j.RunCount = 0, 0, 0
	j.Ctime = 0
	j.Qtime = 0
	j.Mtime = 0
	j.Etime = 0
	j.Stime = 0
	j.SetObit(0)
	j.Exit = nil
	j.Used = nil
	j.Exec = nil
	j.History = nil
	j.Rank = nil
	j.SetExclusive(false)
	j.SetStagein("")
	j.SetStageout("")
	j.SetDeleter("")
	j.SetDepend("")
	j.SetInteractiveAddr("")
	j.SetInteractiveCookie("")
	j.SetEstStart(0)
	j.SetEstExec(nil)
	j.SetSignals(nil)
	j.SetDeps(nil)
	j.SetNeverRunEpoch(0)
	j.SetKillRequested(false)
	j.SetTopJob(false)
	j.SetRequeueOnEnd(false)
	r.base = j
	return r
}

// joinSubjob rebuilds the stored job: a fresh value the caller may read
// (and Copy to change, as any stored job).
func joinSubjob(r *finishedSubjob) *model.Job {
	j := r.base.Dup()
	j.ID = r.ID
	j.SetArrayIndex(r.ArrayIndex)
	j.Output = r.Output
	j.Error = r.Error
	j.State = r.State
	j.Hold = r.Hold
	j.Comment = r.Comment
	j.SetMSHost(r.MSHost)
	j.Substate, j.SessionID, j.RunCount = r.Substate, r.SessionID, r.RunCount
	j.Ctime = r.Ctime
	j.Qtime = r.Qtime
	j.Mtime = r.Mtime
	j.Etime = r.Etime
	j.Stime = r.Stime
	j.SetObit(r.Obit)
	j.Exit = r.Exit
	j.Used = r.Used
	j.Exec = r.Exec
	j.History = r.History
	j.Rank = r.Rank
	j.SetExclusive(r.Exclusive)
	if x := r.rare; x != nil {
		j.SetStagein(x.Stagein)
		j.SetStageout(x.Stageout)
		j.SetDeleter(x.Deleter)
		j.SetDepend(x.Depend)
		j.SetInteractiveAddr(x.InteractiveAddr)
		j.SetInteractiveCookie(x.InteractiveCookie)
		j.SetEstStart(x.EstStart)
		j.SetEstExec(x.EstExec)
		j.SetSignals(x.Signals)
		j.SetDeps(x.Deps)
		j.SetNeverRunEpoch(x.NeverRunEpoch)
		j.SetKillRequested(x.KillRequested)
		j.SetTopJob(x.TopJob)
		j.SetRequeueOnEnd(x.RequeueOnEnd)
	}
	return &j
}

// templates remembers the last template of each array, so that siblings
// finishing one after another share it. Bounded like the other sharing
// tables: a cache, never state.
type templates struct {
	m map[string]*model.Job
}

// finished turns a finished subjob (already through job(), so its strings
// and lists are shared) into its compact record. j itself is left as it
// is: callers go on reading it after storing it.
func (c *compactor) finished(j *model.Job) *finishedSubjob {
	t := j.Dup()
	r := splitSubjob(&t)
	if len(r.Used) > 0 {
		r.Used = c.list(r.Used) // simulated and short jobs often report the same
	}
	r.Exec = c.exec(r.Exec)
	parent := r.base.ArrayID()
	if shared, ok := c.tmpl.m[parent]; ok && reflect.DeepEqual(shared, r.base) {
		r.base = shared
		return r
	}
	if c.tmpl.m == nil || len(c.tmpl.m) >= sharedTableMax {
		c.tmpl.m = make(map[string]*model.Job)
	}
	c.tmpl.m[parent] = r.base
	return r
}

// --- writer -----------------------------------------------------------------

// finishedSubjobRecord returns the compact record of id, or nil.
func (w *writer) finishedSubjobRecord(id string) *finishedSubjob {
	return getDone(w.txn, id)
}

// putFinishedSubjob stores a finished subjob (the writer's copy, through
// the compactor) compactly, in place of its row in the jobs table.
func (w *writer) putFinishedSubjob(j *model.Job) {
	if old := w.jobRow(j.ID); old != nil {
		w.must(moveStateGroups(w.txn, old, nil))
		w.must(w.txn.Delete(tableJobs, old))
	}
	w.must(putDone(w.txn, w.pack.finished(j)))
	w.touch(tableJobs)
}

// finishedSubjobsOf lists the compact records of an array's finished
// subjobs, rebuilt, in index order.
func finishedSubjobsOf(txn *memdb.Txn, parentID string) []*model.Job {
	var out []*model.Job
	eachDone(txn, parentID, func(r *finishedSubjob) error {
		out = append(out, joinSubjob(r))
		return nil
	})
	return out
}

// --- snapshot ---------------------------------------------------------------

// finishedSubjob returns a finished subjob rebuilt from its compact record,
// or nil.
func (s *StateSnapshot) finishedSubjob(id string) *model.Job {
	if r := getDone(s.txn, id); r != nil {
		return joinSubjob(r)
	}
	return nil
}

// eachFinishedSubjob calls fn with every finished subjob, rebuilt, in
// table order (for snapshots).
func (s *StateSnapshot) eachFinishedSubjob(fn func(*model.Job) error) error {
	return eachDone(s.txn, "", func(r *finishedSubjob) error { return fn(joinSubjob(r)) })
}

// FinishedSubjobCount is the number of finished subjobs held as compact
// records.
func (s *StateSnapshot) FinishedSubjobCount() int {
	n := 0
	eachDone(s.txn, "", func(*finishedSubjob) error {
		n++
		return nil
	})
	return n
}
