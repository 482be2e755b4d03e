package schedglue

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// preemptFixture: host n1 with 2 cpus, queues workq (0) and express (200).
func preemptFixture(t *testing.T, order string) *fixture {
	cfg := model.ServerConfig{Queues: map[string]model.QueueConfig{
		"workq": startedQueue("workq", 0, ""), "express": startedQueue("express", 200, ""),
	}}
	cfg.Sched.Preempt.Order = order
	f := newFixture(t, cfg)
	f.host("n1", "ncpus=2", "")
	return f
}

// started reports a job's run as started by its agent (substate 42).
func (f *fixture) started(id string, now int64) {
	f.t.Helper()
	f.apply(&raftstore.JobEvents{Host: "n1", Now: now, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventStarted, Run: f.State().Job(id).RunCount, SessionID: 9}}})
}

func (f *fixture) ended(id string, now int64) {
	f.t.Helper()
	f.apply(&raftstore.JobEvents{Host: "n1", Now: now, Events: []model.JobEvent{{JobID: id, Kind: model.JobEventEnded, Run: f.State().Job(id).RunCount}}})
}

func (f *fixture) acct(typ, id string) bool {
	for _, r := range f.State().AcctRecords(0, 100000) {
		if r.Type == typ && r.ID == id {
			return true
		}
	}
	return false
}

func TestPreemptSuspendThenResume(t *testing.T) {
	f := preemptFixture(t, "SCR")
	normal := f.submit(job{sel: "1:ncpus=2"}, 100)
	f.cycle(110)
	f.started(normal, 111)
	ex := f.submit(job{queue: "express", sel: "1:ncpus=2"}, 120)
	f.cycle(130)
	if s := f.seen(normal); s.State != "S/45" || s.Comment != "Job preempted by suspension" {
		t.Fatalf("victim %+v, want S/45 preempted by suspension", s)
	}
	if s := f.seen(ex); s.State != "R/41" {
		t.Fatalf("express job %+v, want started", s)
	}
	if j := f.State().Job(normal); len(j.Signals()) != 1 || j.Signals()[0].Signal != "suspend" || j.PreemptedAt() != 130 {
		t.Fatalf("victim signals %+v time_preempted %d", j.Signals(), j.PreemptedAt())
	}
	if !f.acct(model.AcctSuspend, normal) {
		t.Fatal("no z accounting record")
	}
	// Nothing is resumed while the express job runs.
	f.started(ex, 131)
	f.cycle(140)
	if s := f.seen(normal); s.State != "S/45" {
		t.Fatalf("victim %+v resumed while its cpus are taken", s)
	}
	f.ended(ex, 150)
	f.cycle(160)
	if s := f.seen(normal); s.State != "R/42" || !strings.HasPrefix(s.Comment, "Job resumed") {
		t.Fatalf("victim %+v, want resumed", s)
	}
	if j := f.State().Job(normal); j.Signals()[len(j.Signals())-1].Signal != "resume" {
		t.Fatalf("no resume signal: %+v", j.Signals())
	}
	if !f.acct(model.AcctResume, normal) {
		t.Fatal("no r accounting record")
	}
	if v := f.State().Vnode("n1"); v.Assigned["ncpus"] != 2 {
		t.Fatalf("n1 assigned %v after resume, want 2 cpus", v.Assigned)
	}
}

func TestPreemptRequeueDeleteCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		order, state, comment, acct string
	}{
		{"R", "Q/10", "Job preempted by requeuing", model.AcctRerun},
		{"D", "F/91", "Job preempted by deletion and terminated", model.AcctDeleted},
		{"C", "R/42", "Job preempted by checkpointing", model.AcctCheckpoint},
	} {
		t.Run(tc.order, func(t *testing.T) {
			f := preemptFixture(t, tc.order)
			f.configure(func(c *model.ServerConfig) { c.JobHistoryEnable = true; c.JobHistoryDuration = 3600 })
			normal := f.submit(job{sel: "1:ncpus=2"}, 100)
			f.cycle(110)
			f.started(normal, 111)
			ex := f.submit(job{queue: "express", sel: "1:ncpus=2"}, 120)
			f.cycle(130)
			if s := f.seen(normal); s.State != tc.state || s.Comment != tc.comment {
				t.Fatalf("victim %+v, want %s %q", s, tc.state, tc.comment)
			}
			if !f.acct(tc.acct, normal) {
				t.Fatalf("no %s accounting record", tc.acct)
			}
			if tc.order != "C" {
				if s := f.seen(ex); s.State != "R/41" {
					t.Fatalf("express job %+v, want started in the same cycle", s)
				}
				return
			}
			// Checkpoint: the job is still running its checkpoint; the
			// express job waits, and no second victim is chosen.
			if s := f.seen(ex); s.State != "Q/10" || !strings.Contains(s.Comment, "preempted jobs") {
				t.Fatalf("express job %+v, want waiting", s)
			}
			if j := f.State().Job(normal); j.Signals()[len(j.Signals())-1].Signal != model.SigCheckpoint {
				t.Fatalf("no checkpoint request: %+v", j.Signals())
			}
			f.cycle(140)
			if s := f.seen(ex); s.State != "Q/10" {
				t.Fatalf("express job %+v started before the checkpoint ended", s)
			}
			f.ended(normal, 150) // killed by the agent after its checkpoint script
			if s := f.seen(normal); s.State != "Q/10" || s.Comment != "Job preempted by checkpointing" {
				t.Fatalf("checkpointed job %+v, want requeued", s)
			}
			f.cycle(160)
			if s := f.seen(ex); s.State != "R/41" {
				t.Fatalf("express job %+v, want started once the checkpoint ended", s)
			}
		})
	}
}

func TestPreemptSoftLimits(t *testing.T) {
	cfg := model.ServerConfig{Queues: map[string]model.QueueConfig{"workq": startedQueue("workq", 0, "")}}
	q := cfg.Queues["workq"]
	q.MaxRunSoft = "[u:PBS_GENERIC=1]"
	cfg.Queues["workq"] = q
	cfg.Sched.Preempt.Prio = "express_queue, normal_jobs, queue_softlimits"
	cfg.Sched.Preempt.Order = "R"
	f := newFixture(t, cfg)
	f.host("n1", "ncpus=2", "")
	a1 := f.submit(job{user: "alice", sel: "1:ncpus=1"}, 100)
	a2 := f.submit(job{user: "alice", sel: "1:ncpus=1"}, 101)
	f.cycle(110)
	f.started(a1, 111)
	f.started(a2, 112)
	b := f.submit(job{user: "bob", sel: "1:ncpus=1"}, 120)
	f.cycle(130)
	if s := f.seen(b); s.State != "R/41" {
		t.Fatalf("bob %+v, want started by preempting alice (over her soft limit)", s)
	}
	if f.seen(a2).State != "Q/10" || f.seen(a1).State != "R/42" {
		t.Fatalf("alice's jobs %v %v, want the most recently started requeued", f.seen(a1), f.seen(a2))
	}
}

func TestPreemptiveSchedOff(t *testing.T) {
	cfg := model.ServerConfig{Queues: map[string]model.QueueConfig{
		"workq": startedQueue("workq", 0, ""), "express": startedQueue("express", 200, ""),
	}}
	cfg.Sched.Preempt.Off = true
	f := newFixture(t, cfg)
	f.host("n1", "ncpus=2", "")
	normal := f.submit(job{sel: "1:ncpus=2"}, 100)
	f.cycle(110)
	f.started(normal, 111)
	ex := f.submit(job{queue: "express", sel: "1:ncpus=2"}, 120)
	f.cycle(130)
	if f.seen(normal).State != "R/42" || f.seen(ex).State != "Q/10" {
		t.Fatalf("preemption happened with preemptive_sched off: %v %v", f.seen(normal), f.seen(ex))
	}
}

// TestPreemptedJobCannotBeContinued performs the attack: the owner of a
// job suspended for an express job sends it SIGCONT to run on the cpus
// the express job was given. The FSM refuses it; a resume by the
// scheduler (or an operator) is the only way back.
func TestPreemptedJobCannotBeContinued(t *testing.T) {
	f := preemptFixture(t, "S")
	normal := f.submit(job{sel: "1:ncpus=2"}, 100)
	f.cycle(110)
	f.started(normal, 111)
	f.submit(job{queue: "express", sel: "1:ncpus=2"}, 120)
	f.cycle(130)
	_, err := f.Apply(&raftstore.SignalJob{JobID: normal, Signal: "SIGCONT", Requestor: "alice@h", Now: 140})
	if e, ok := model.AsPBSError(err); !ok || e.Code != model.PBSEBadState {
		t.Fatalf("SIGCONT to a preempted job: %v, want PBSEBadState", err)
	}
	if j := f.State().Job(normal); len(j.Signals()) != 1 || j.State != model.StateSuspended {
		t.Fatalf("job after the refused SIGCONT: %s signals %+v", j.State, j.Signals())
	}
}

// TestPreemptFairshareClass: with preempt_prio "express_queue,
// normal_jobs, fairshare", a job of a user within their share preempts a
// job of a user who has used more than theirs.
func TestPreemptFairshareClass(t *testing.T) {
	cfg := model.ServerConfig{Queues: map[string]model.QueueConfig{"workq": startedQueue("workq", 0, "")}}
	cfg.Sched.Preempt.Prio = "express_queue, normal_jobs, fairshare"
	cfg.Sched.Preempt.Order = "R"
	cfg.Sched.Fairshare = &model.FairshareConfig{Tree: []string{"alice 1 root 50", "bob 2 root 50"}}
	f := newFixture(t, cfg)
	f.host("n1", "ncpus=1", "")
	a := f.submit(job{user: "alice", sel: "1:ncpus=1"}, 100)
	f.cycle(110)
	f.started(a, 111)
	f.apply(&raftstore.Fairshare{Op: raftstore.FairshareSet, Entity: "alice", Usage: 1000, Now: 112})
	f.apply(&raftstore.Fairshare{Op: raftstore.FairshareSet, Entity: "bob", Usage: 10, Now: 112})
	b := f.submit(job{user: "bob", sel: "1:ncpus=1"}, 120)
	f.cycle(130)
	if f.seen(b).State != "R/41" || f.seen(a).State != "Q/10" {
		t.Fatalf("bob %v alice %v: want alice (over her share) requeued for bob", f.seen(b), f.seen(a))
	}
	// The other way round nothing happens: bob is within his share.
	f.started(b, 131)
	f.cycle(140)
	if f.seen(b).State != "R/42" {
		t.Fatalf("bob %v preempted by alice, who is over her share", f.seen(b))
	}
}
