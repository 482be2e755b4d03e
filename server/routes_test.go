package server_test

// The server's routes through the real client against a real server
// (servertest): queue admission, server hooks, the scheduler loop, arrays,
// job operations on running jobs, the agent's view and qmgr's describe.
// Every check is what a command would show.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/servertest"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the socket identifies the caller, and root may manage")
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newJob(mod func(*api.SubmitRequest)) *api.SubmitRequest {
	var tok [12]byte
	rand.Read(tok[:])
	r := &api.SubmitRequest{
		Token: hex.EncodeToString(tok[:]), Name: "j", Script: "#!/bin/sh\ntrue\n", Workdir: "/tmp", SubmitHost: "localhost",
		Env:       []model.EnvVar{{Name: "PBS_O_WORKDIR", Value: "/tmp"}, {Name: "PBS_O_HOME", Value: "/root"}},
		Resources: map[string]string{"select": "1:ncpus=1"},
	}
	if mod != nil {
		mod(r)
	}
	return r
}

func pbsCode(err error) int {
	if pe, ok := model.AsPBSError(err); ok {
		return pe.Code
	}
	return 0
}

type cluster struct {
	t     *testing.T
	ctx   context.Context
	c     *api.Client
	srv   *servertest.Server
	agent *api.Client
	index uint64
}

func newCluster(t *testing.T, ncpus string) *cluster {
	needRoot(t)
	s := servertest.Start(t, nil)
	cl := &cluster{t: t, ctx: testCtx(t), c: s.Root, srv: s}
	if ncpus != "" {
		cl.agent = s.Agent(t, "n1")
		if _, err := cl.agent.Register(cl.ctx, &api.RegisterRequest{Host: "n1", BootID: "b1", Version: api.PBSVersion, Pcpus: 4,
			Vnodes: []api.VnodeSpec{{Name: "n1", Resources: map[string]string{"ncpus": ncpus, "mem": "4gb"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	return cl
}

func (cl *cluster) qmgr(verb, object, name string, attrs ...string) error {
	req := &model.ManagerRequest{Verb: verb, Object: object, Name: name}
	for _, a := range attrs {
		k, v, _ := strings.Cut(a, "=")
		at := model.ManagerAttr{Name: k, Op: "=", Value: v}
		if n, r, ok := strings.Cut(k, "."); ok {
			at.Name, at.Resource = n, r
		}
		req.Attrs = append(req.Attrs, at)
	}
	return cl.c.Manage(cl.ctx, req)
}

func (cl *cluster) mustQmgr(verb, object, name string, attrs ...string) {
	cl.t.Helper()
	if err := cl.qmgr(verb, object, name, attrs...); err != nil {
		cl.t.Fatalf("qmgr %s %s %s %v: %v", verb, object, name, attrs, err)
	}
}

func (cl *cluster) submit(mod func(*api.SubmitRequest)) (string, error) {
	return cl.c.Submit(cl.ctx, newJob(mod), 0)
}

func (cl *cluster) mustSubmit(mod func(*api.SubmitRequest)) string {
	cl.t.Helper()
	id, err := cl.submit(mod)
	if err != nil {
		cl.t.Fatalf("qsub: %v", err)
	}
	return id
}

func (cl *cluster) job(id string) *model.Job {
	cl.t.Helper()
	r, err := cl.c.Jobs(cl.ctx, []string{id}, true)
	if err != nil || len(r.Jobs) != 1 {
		cl.t.Fatalf("qstat %s: %v", id, err)
	}
	return r.Jobs[0].Job
}

// waitState polls the job until it is in state (a deadline, no sleeps as
// synchronisation: the agent's work long poll is the wait).
func (cl *cluster) waitState(id, state string) *model.Job {
	cl.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		j := cl.job(id)
		if j.State == state {
			return j
		}
		if time.Now().After(deadline) {
			cl.t.Fatalf("job %s is %s, want %s (comment %q)", id, j.State, state, j.Comment)
		}
		if cl.agent != nil {
			w, err := cl.agent.Work(cl.ctx, "n1", cl.index, 200*time.Millisecond)
			if err == nil {
				cl.index = w.Index
			}
		} else {
			time.Sleep(20 * time.Millisecond) // nothing to long-poll on without an agent
		}
	}
}

func (cl *cluster) event(id, kind string, exit int) {
	cl.t.Helper()
	j := cl.job(id)
	if err := cl.agent.Events(cl.ctx, &api.EventsRequest{Host: "n1", Events: []api.JobEvent{{JobID: id, Kind: kind, Run: j.RunCount, SessionID: 99, Exit: exit}}}); err != nil {
		cl.t.Fatalf("%s event for %s: %v", kind, id, err)
	}
}

// TestQueueAdmission: queue and server rules a submission meets.
func TestQueueAdmission(t *testing.T) {
	cl := newCluster(t, "")
	cl.mustQmgr("create", "queue", "small", "enabled=true", "started=true", "resources_max.ncpus=2", "resources_min.ncpus=1",
		"resources_default.walltime=00:30:00", "max_queued=[o:PBS_ALL=2]")
	cl.mustQmgr("create", "queue", "private", "enabled=true", "started=true", "acl_user_enable=true", "acl_users=alice")
	cl.mustQmgr("create", "queue", "grp", "enabled=true", "acl_group_enable=true", "acl_groups=nosuchgroup")
	cl.mustQmgr("create", "queue", "off")
	inQ := func(q, sel string) func(*api.SubmitRequest) {
		return func(r *api.SubmitRequest) { r.Queue = q; r.Resources = map[string]string{"select": sel} }
	}
	id := cl.mustSubmit(inQ("small", "1:ncpus=2"))
	if w := cl.job(id).ResourceList["walltime"]; w != "00:30:00" {
		t.Errorf("queue default walltime: %q", w)
	}
	for _, tc := range []struct {
		name string
		mod  func(*api.SubmitRequest)
		code int
	}{
		{"over resources_max", inQ("small", "1:ncpus=4"), model.PBSEExceedsLimits},
		{"queue acl_users", inQ("private", "1:ncpus=1"), model.PBSEQueueAccess},
		{"queue acl_groups", inQ("grp", "1:ncpus=1"), model.PBSEQueueAccess},
		{"disabled queue", inQ("off", "1:ncpus=1"), model.PBSEQueueNotEnabled},
		{"unknown queue", inQ("nosuch", "1:ncpus=1"), model.PBSEUnknownQueue},
	} {
		if _, err := cl.submit(tc.mod); pbsCode(err) != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
	cl.mustSubmit(inQ("small", "1:ncpus=1"))
	if _, err := cl.submit(inQ("small", "1:ncpus=1")); pbsCode(err) != model.PBSEMaxQueued {
		t.Errorf("third job in a queue of max_queued 2: %v", err)
	}
	// Server-wide limits and ACLs.
	cl.mustQmgr("set", "server", "", "max_queued=[u:PBS_GENERIC=2]")
	if _, err := cl.submit(nil); pbsCode(err) != model.PBSEMaxQueuedWouldBe {
		t.Errorf("third job of a user limited to 2: %v", err)
	}
	cl.mustQmgr("unset", "server", "", "max_queued")
	cl.mustQmgr("set", "server", "", "acl_user_enable=true", "acl_users=alice")
	if _, err := cl.submit(nil); pbsCode(err) != model.PBSEPerm {
		t.Errorf("server acl_users without root: %v", err)
	}
	cl.mustQmgr("set", "server", "", "acl_users=root", "acl_host_enable=true", "acl_hosts=elsewhere")
	if _, err := cl.submit(nil); pbsCode(err) != model.PBSEPerm {
		t.Errorf("server acl_hosts without this host: %v", err)
	}
	cl.mustQmgr("set", "server", "", "acl_host_enable=false")
	// qmove goes through the same admission.
	if err := cl.c.Move(cl.ctx, id, api.MoveRequest{Queue: "private"}); pbsCode(err) != model.PBSEQueueAccess {
		t.Errorf("qmove into a queue the owner may not use: %v", err)
	}
}

// TestServerHooks: a queuejob hook that rejects some jobs and changes
// others, and a modifyjob hook that refuses an alter.
func TestServerHooks(t *testing.T) {
	cl := newCluster(t, "")
	cl.mustQmgr("create", "hook", "qj", "event=queuejob")
	script := "#!/bin/sh\nin=$(cat)\ncase \"$in\" in\n*'\"Job_Name\":\"bad\"'*) echo '{\"accept\":false,\"reject_message\":\"no bad jobs\"}';;\n" +
		"*) echo '{\"job\":{\"Priority\":\"7\",\"comment\":\"seen by qj\",\"Resource_List.walltime\":\"600\"}}';;\nesac\n"
	if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "qj", ContentType: model.HookContentExecutable, Content: script}); err != nil {
		t.Fatal(err)
	}
	id := cl.mustSubmit(nil)
	j := cl.job(id)
	if j.Priority != 7 || j.Comment != "seen by qj" || j.ResourceList["walltime"] != "00:10:00" {
		t.Errorf("hook changes not applied: priority %d comment %q walltime %q", j.Priority, j.Comment, j.ResourceList["walltime"])
	}
	_, err := cl.submit(func(r *api.SubmitRequest) { r.Name = "bad" })
	if pbsCode(err) != model.PBSEHookError || !strings.Contains(err.Error(), "no bad jobs") {
		t.Errorf("rejected job: %v", err)
	}
	cl.mustQmgr("create", "hook", "mj", "event=modifyjob")
	if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "mj", ContentType: model.HookContentExecutable,
		Content: "#!/bin/sh\necho 'no changes' >&2\nexit 1\n"}); err != nil {
		t.Fatal(err)
	}
	name := "other"
	if err := cl.c.Alter(cl.ctx, id, &api.AlterRequest{Name: &name}); pbsCode(err) != model.PBSEHookError {
		t.Errorf("alter refused by modifyjob: %v", err)
	}
	d, err := cl.c.Describe(cl.ctx, "hook", []string{"mj"}, true)
	if err != nil || len(d.Objects) != 1 || !strings.Contains(d.Objects[0].Script, "no changes") {
		t.Fatalf("describe hook with content: %+v %v", d, err)
	}
}

// TestScheduledJobLifecycle: with scheduling on, a job the vnode can hold
// runs; its agent reports it; signals, rerun, qdel and history follow.
func TestScheduledJobLifecycle(t *testing.T) {
	cl := newCluster(t, "2")
	cl.mustQmgr("create", "hook", "rj", "event=runjob")
	if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "rj", ContentType: model.HookContentExecutable,
		Content: "#!/bin/sh\ncat >/dev/null\nexit 0\n"}); err != nil {
		t.Fatal(err)
	}
	cl.mustQmgr("set", "server", "", "scheduling=true", "job_history_enable=true")
	a := cl.mustSubmit(func(r *api.SubmitRequest) { r.Resources = map[string]string{"select": "1:ncpus=2", "walltime": "100"} })
	b := cl.mustSubmit(nil) // waits: the vnode is full
	ja := cl.waitState(a, model.StateRunning)
	if ja.ExecHost() != "n1/0*2" {
		t.Errorf("exec_host %q", ja.ExecHost())
	}
	cl.event(a, api.EventStarted, 0)
	if err := cl.c.Signal(cl.ctx, a, api.SignalRequest{Signal: "SIGUSR1"}); err != nil {
		t.Errorf("qsig -s USR1: %v", err)
	}
	if err := cl.c.Signal(cl.ctx, a, api.SignalRequest{Signal: "NOSUCH"}); pbsCode(err) == 0 {
		t.Errorf("qsig of an unknown signal accepted")
	}
	if err := cl.c.Rerun(cl.ctx, a, api.RerunRequest{Force: true}); err != nil {
		t.Fatalf("qrerun: %v", err)
	}
	// Requeued, a is first in line again and runs a second time.
	if j := cl.waitState(a, model.StateRunning); j.RunCount <= ja.RunCount {
		t.Errorf("rerun job run count %d, was %d", j.RunCount, ja.RunCount)
	}
	cl.event(a, api.EventStarted, 0)
	cl.event(a, api.EventEnded, 0)
	cl.waitState(a, model.StateFinished)
	cl.waitState(b, model.StateRunning)
	cl.event(b, api.EventStarted, 0)
	if err := cl.c.Delete(cl.ctx, b, api.DeleteRequest{}); err != nil {
		t.Fatalf("qdel of a running job: %v", err)
	}
	cl.event(b, api.EventEnded, 271)
	if j := cl.waitState(b, model.StateFinished); j.Exit == nil {
		t.Errorf("deleted job has no exit status")
	}
	if err := cl.c.Delete(cl.ctx, b, api.DeleteRequest{Purge: true}); err != nil {
		t.Errorf("qdel -x of a finished job: %v", err)
	}
	nodes, err := cl.c.Nodes(cl.ctx)
	if err != nil || len(nodes.Vnodes) != 1 || len(nodes.Vnodes[0].Jobs) != 0 {
		t.Errorf("vnode after the jobs: %+v %v", nodes, err)
	}
	d, err := cl.c.Describe(cl.ctx, "node", nil, false)
	if err != nil || len(d.Objects) != 1 {
		t.Fatalf("describe nodes: %+v %v", d, err)
	}
	for _, obj := range []string{"server", "sched", "resource", "hook"} {
		if _, err := cl.c.Describe(cl.ctx, obj, nil, false); err != nil {
			t.Errorf("describe %s: %v", obj, err)
		}
	}
}

// TestArrays: an array job's subjobs through qstat -t, qrun, qdel, qhold
// and qalter on the parent and on subjob ranges.
func TestArrays(t *testing.T) {
	cl := newCluster(t, "4")
	p := cl.mustSubmit(func(r *api.SubmitRequest) { r.ArrayIndices = "1-6" })
	if p != "0[].svr" {
		t.Fatalf("array id %s", p)
	}
	r, err := cl.c.JobsWithSubjobs(cl.ctx, []string{"0[2-3].svr"}, false)
	if err != nil || len(r.Jobs) != 2 || r.Jobs[0].ID != "0[2].svr" {
		t.Fatalf("qstat -t 0[2-3]: %+v %v", r, err)
	}
	if _, err := cl.c.Jobs(cl.ctx, []string{"0[9].svr"}, false); pbsCode(err) == 0 {
		t.Errorf("qstat of a subjob out of range succeeded")
	}
	if err := cl.c.Run(cl.ctx, "0[1].svr", api.RunRequest{Vnodes: []string{"n1"}}); err != nil {
		t.Fatalf("qrun of a subjob: %v", err)
	}
	cl.waitState("0[1].svr", model.StateRunning)
	cl.event("0[1].svr", api.EventStarted, 0)
	if j := cl.job(p); j.State != "B" {
		t.Errorf("parent of a running subjob is %s, want B", j.State)
	}
	if err := cl.c.Signal(cl.ctx, p, api.SignalRequest{Signal: "TERM"}); err != nil {
		t.Errorf("qsig of the array: %v", err)
	}
	if err := cl.c.Delete(cl.ctx, "0[5-6].svr", api.DeleteRequest{}); err != nil {
		t.Errorf("qdel of a subjob range: %v", err)
	}
	if err := cl.c.Hold(cl.ctx, p, api.HoldRequest{Holds: "u"}); err != nil {
		t.Errorf("qhold of the array: %v", err)
	}
	limit := int64(2)
	if err := cl.c.Alter(cl.ctx, p, &api.AlterRequest{MaxRunSubjobs: &limit}); err != nil {
		t.Errorf("qalter max_run_subjobs: %v", err)
	}
	if err := cl.c.Release(cl.ctx, p, api.HoldRequest{Holds: "u"}); err != nil {
		t.Errorf("qrls of the array: %v", err)
	}
	if err := cl.c.Run(cl.ctx, p, api.RunRequest{Vnodes: []string{"n1"}}); pbsCode(err) == 0 {
		t.Errorf("qrun of an array parent accepted")
	}
	cl.event("0[1].svr", api.EventEnded, 0)
	if err := cl.c.Delete(cl.ctx, p, api.DeleteRequest{}); err != nil {
		t.Errorf("qdel of the array: %v", err)
	}
}

// TestAlterFields: qalter of each attribute a user may change, and the
// refusals.
func TestAlterFields(t *testing.T) {
	cl := newCluster(t, "")
	id := cl.mustSubmit(func(r *api.SubmitRequest) { r.Hold = "u" })
	s := func(v string) *string { return &v }
	yes := true
	at := time.Now().Add(time.Hour).Unix()
	req := &api.AlterRequest{Account: s("acct"), Project: s("proj"), MailPoints: s("abe"), MailUsers: s("alice@h"),
		Join: s("oe"), Keep: s("oe"), Output: s("localhost:/tmp/o"), Error: s("localhost:/tmp/e"), Shell: s("/bin/bash"),
		Rerunable: &yes, ExecTime: &at, Resources: map[string]string{"walltime": "01:00:00"}}
	if err := cl.c.Alter(cl.ctx, id, req); err != nil {
		t.Fatalf("qalter: %v", err)
	}
	j := cl.job(id)
	if j.Account != "acct" || j.Project != "proj" || j.ResourceList["walltime"] != "01:00:00" || j.ExecTime() != at {
		t.Errorf("altered job: %+v", j)
	}
	if err := cl.c.Alter(cl.ctx, id, &api.AlterRequest{Hold: s("n")}); err != nil {
		t.Errorf("qalter -h n: %v", err)
	}
	for name, bad := range map[string]*api.AlterRequest{
		"bad name":     {Name: s("has space")},
		"bad priority": {Priority: func() *int { n := 5000; return &n }()},
		"bad resource": {Resources: map[string]string{"nosuch": "1"}},
		"bad select":   {Resources: map[string]string{"select": "x:y"}},
	} {
		if err := cl.c.Alter(cl.ctx, id, bad); pbsCode(err) == 0 {
			t.Errorf("%s accepted", name)
		}
	}
	if err := cl.c.Alter(cl.ctx, "77.svr", &api.AlterRequest{Name: s("x")}); pbsCode(err) != model.PBSEUnknownJobID {
		t.Errorf("qalter of an unknown job: %v", err)
	}
}

// TestReservationRuns: a reservation is confirmed by the scheduler on a
// registered vnode, starts at its time, runs a job submitted to its queue
// and ends when it is deleted; a job asking for an AOE the reservation
// does not have is refused.
func TestReservationRuns(t *testing.T) {
	cl := newCluster(t, "4")
	cl.mustQmgr("set", "server", "", "scheduling=true")
	start := time.Now().Unix() + 1
	id, err := cl.c.SubmitResv(cl.ctx, &api.ResvSubmitRequest{Token: "r", Start: start, End: start + 3600,
		Resources: map[string]string{"select": "1:ncpus=2"}, SubmitHost: "localhost"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	resv := func() *model.Reservation {
		t.Helper()
		r, err := cl.c.Resvs(cl.ctx, []string{id}, false)
		if err != nil || len(r.Resvs) != 1 {
			t.Fatalf("pbs_rstat %s: %v", id, err)
		}
		return r.Resvs[0].Reservation
	}
	deadline := time.Now().Add(15 * time.Second)
	for resv().State != model.ResvRunning {
		if time.Now().After(deadline) {
			t.Fatalf("reservation %s is %s, want RN", id, model.ResvStateShort(resv().State))
		}
		w, err := cl.agent.Work(cl.ctx, "n1", cl.index, 100*time.Millisecond)
		if err == nil {
			cl.index = w.Index
		}
	}
	q := model.ResvQueueName(id)
	_, err = cl.submit(func(r *api.SubmitRequest) {
		r.Queue = q
		r.Resources = map[string]string{"select": "1:ncpus=1:aoe=rhel"}
	})
	if pbsCode(err) != model.PBSEIvalAOEChunk {
		t.Errorf("AOE job in a reservation without one: %v", err)
	}
	jid := cl.mustSubmit(func(r *api.SubmitRequest) { r.Queue = q })
	if j := cl.waitState(jid, model.StateRunning); j.Queue != q {
		t.Errorf("job ran in queue %s", j.Queue)
	}
	cl.event(jid, api.EventStarted, 0)
	if err := cl.c.DeleteResv(cl.ctx, id); err != nil {
		t.Fatal(err)
	}
	cl.event(jid, api.EventEnded, 271)
	cl.waitState(jid, model.StateFinished)
}
