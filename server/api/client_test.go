package api_test

// The client against a real server (servertest: Raft on disk, the Unix
// socket and the mutual-TLS API on loopback): every call a command or an
// agent makes, its success and its PBS errors as a command would print
// them.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/servertest"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the server's Unix socket identifies callers; root may submit and manage")
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// job is a submission with a fresh random token (the token is what makes
// a retried submission the same job).
func job(mod func(*api.SubmitRequest)) *api.SubmitRequest {
	var tok [12]byte
	rand.Read(tok[:])
	r := &api.SubmitRequest{
		Token: hex.EncodeToString(tok[:]),
		Name:  "j", Script: "#!/bin/sh\ntrue\n", Workdir: "/tmp", SubmitHost: "localhost",
		Env:       []model.EnvVar{{Name: "PBS_O_WORKDIR", Value: "/tmp"}, {Name: "PBS_O_HOME", Value: "/root"}},
		Resources: map[string]string{"select": "1:ncpus=1"},
	}
	if mod != nil {
		mod(r)
	}
	return r
}

// wantPBS fails unless err is a PBS error with code.
func wantPBS(t *testing.T, what string, err error, code int) {
	t.Helper()
	pe, ok := model.AsPBSError(err)
	if !ok || pe.Code != code {
		t.Fatalf("%s: got %v, want PBS error %d (%s)", what, err, code, model.Message(code))
	}
}

func manage(t *testing.T, c *api.Client, verb, object, name string, attrs ...model.ManagerAttr) {
	t.Helper()
	if err := c.Manage(ctxFor(t), &model.ManagerRequest{Verb: verb, Object: object, Name: name, Attrs: attrs}); err != nil {
		t.Fatalf("qmgr %s %s %s: %v", verb, object, name, err)
	}
}

func attr(name, value string) model.ManagerAttr {
	return model.ManagerAttr{Name: name, Op: "=", Value: value}
}

// TestJobOperations: submit, query, alter, hold, release, move, order and
// delete, and the errors each gives for a job in the wrong state or one
// that does not exist.
func TestJobOperations(t *testing.T) {
	needRoot(t)
	s := servertest.Start(t, nil)
	c, ctx := s.Root, ctxFor(t)
	manage(t, c, "create", "queue", "q2", attr("enabled", "true"), attr("started", "true"))

	a, err := c.Submit(ctx, job(func(r *api.SubmitRequest) { r.Hold = "u" }), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Submit(ctx, job(func(r *api.SubmitRequest) { r.Hold = "u"; r.Name = "second" }), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a != "0.svr" || b != "1.svr" {
		t.Fatalf("ids %s %s", a, b)
	}
	// The same token is the same job (a retried submission).
	again := job(nil)
	first, _ := c.Submit(ctx, again, 0)
	if second, err := c.Submit(ctx, again, 0); err != nil || second != first {
		t.Fatalf("retry with the same token: %s %v, first %s", second, err, first)
	}
	if err := c.Delete(ctx, first, api.DeleteRequest{}); err != nil {
		t.Fatal(err)
	}

	jobs, err := c.Jobs(ctx, []string{a}, false)
	if err != nil || len(jobs.Jobs) != 1 || jobs.Jobs[0].State != model.StateHeld || jobs.Server.Name != "svr" {
		t.Fatalf("Jobs(%s) = %+v, %v", a, jobs, err)
	}
	_, err = c.Jobs(ctx, []string{"99.svr"}, false)
	wantPBS(t, "qstat of an unknown job", err, model.PBSEUnknownJobID)

	name := "renamed"
	prio := 10
	if err := c.Alter(ctx, a, &api.AlterRequest{Name: &name, Priority: &prio}); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(ctx, a, api.HoldRequest{Holds: "u"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Hold(ctx, a, api.HoldRequest{Holds: "u"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Move(ctx, a, api.MoveRequest{Queue: "q2"}); err != nil {
		t.Fatal(err)
	}
	wantPBS(t, "qmove to an unknown queue", c.Move(ctx, a, api.MoveRequest{Queue: "nosuch"}), model.PBSEUnknownQueue)
	if err := c.Move(ctx, a, api.MoveRequest{Queue: "workq"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Order(ctx, a, api.OrderRequest{Other: b}); err != nil {
		t.Fatal(err)
	}
	jobs, err = c.Jobs(ctx, nil, false)
	if err != nil || len(jobs.Jobs) != 2 {
		t.Fatalf("all jobs: %+v %v", jobs, err)
	}
	got := jobs.Jobs[0]
	if got.ID != a && got.ID != b {
		t.Fatalf("unexpected job %s", got.ID)
	}
	for _, j := range jobs.Jobs {
		if j.ID == a && (j.Name != "renamed" || j.Priority != 10 || j.Queue != "workq") {
			t.Errorf("altered job: name %q priority %d queue %s", j.Name, j.Priority, j.Queue)
		}
	}
	wantPBS(t, "qsig of a queued job", c.Signal(ctx, a, api.SignalRequest{Signal: "TERM"}), model.PBSEBadState)
	wantPBS(t, "qrerun of a queued job", c.Rerun(ctx, a, api.RerunRequest{}), model.PBSEBadState)
	wantPBS(t, "qhold of an unknown job", c.Hold(ctx, "99.svr", api.HoldRequest{Holds: "u"}), model.PBSEUnknownJobID)
	wantPBS(t, "qdel of an unknown job", c.Delete(ctx, "99.svr", api.DeleteRequest{}), model.PBSEUnknownJobID)
	if err := c.Delete(ctx, a, api.DeleteRequest{}); err != nil {
		t.Fatal(err)
	}

	// An array and its subjobs.
	arr, err := c.Submit(ctx, job(func(r *api.SubmitRequest) { r.ArrayIndices = "1-3"; r.Hold = "u" }), 0)
	if err != nil {
		t.Fatal(err)
	}
	withSub, err := c.JobsWithSubjobs(ctx, []string{arr}, false)
	if err != nil || len(withSub.Jobs) != 4 {
		t.Fatalf("qstat -t %s: %d jobs, %v", arr, len(withSub.Jobs), err)
	}

	info, err := c.Server(ctx)
	if err != nil || info.Name != "svr" || !info.Leader || info.DefaultQ != "workq" || len(info.Queues) != 2 {
		t.Fatalf("Server = %+v, %v", info, err)
	}
	d, err := c.Describe(ctx, "queue", []string{"q2"}, false)
	if err != nil || len(d.Objects) != 1 || d.Objects[0].Name != "q2" {
		t.Fatalf("Describe queue q2 = %+v, %v", d, err)
	}
	_, err = c.Describe(ctx, "queue", []string{"nosuch"}, false)
	wantPBS(t, "qmgr list of an unknown queue", err, model.PBSEUnknownQueue)
	err = c.Manage(ctx, &model.ManagerRequest{Verb: "set", Object: "server", Attrs: []model.ManagerAttr{attr("bogus", "1")}})
	wantPBS(t, "qmgr set of an unknown attribute", err, model.PBSENoAttr)
}

// TestAgentCycle: an agent registers its host, a job is run on it, the
// agent receives it through the work long poll and reports it started and
// ended; the job is then history with its exit status.
func TestAgentCycle(t *testing.T) {
	needRoot(t)
	s := servertest.Start(t, nil)
	c, ctx := s.Root, ctxFor(t)
	agent := s.Agent(t, "n1")
	reg, err := agent.Register(ctx, &api.RegisterRequest{Host: "n1", BootID: "boot1", Version: api.PBSVersion, Pcpus: 2,
		Vnodes: []api.VnodeSpec{{Name: "n1", Resources: map[string]string{"ncpus": "2", "mem": "2gb"}}}})
	if err != nil || reg.ServerName != "svr" || reg.HeartbeatInterval <= 0 {
		t.Fatalf("Register = %+v, %v", reg, err)
	}
	if err := agent.Heartbeat(ctx, &api.HeartbeatRequest{Host: "n1", BootID: "boot1"}); err != nil {
		t.Fatal(err)
	}
	// An agent acts only for its own host.
	wantPBS(t, "heartbeat for another host", agent.Heartbeat(ctx, &api.HeartbeatRequest{Host: "n2", BootID: "b"}), model.PBSEPerm)
	// Agent routes are not for local commands.
	_, err = c.Work(ctx, "n1", 0, time.Millisecond)
	wantPBS(t, "work list over the socket", err, model.PBSEPerm)

	nodes, err := c.Nodes(ctx)
	if err != nil || len(nodes.Vnodes) != 1 || nodes.Vnodes[0].Name != "n1" {
		t.Fatalf("Nodes = %+v, %v", nodes, err)
	}
	off, comment := true, "maintenance"
	if err := c.MarkNodes(ctx, &api.MarkNodesRequest{Nodes: []string{"n1"}, Offline: &off, Comment: &comment}); err != nil {
		t.Fatal(err)
	}
	wantPBS(t, "pbsnodes -o of an unknown node", c.MarkNodes(ctx, &api.MarkNodesRequest{Nodes: []string{"zz"}, Offline: &off}), model.PBSEUnknownNode)
	off = false
	if err := c.MarkNodes(ctx, &api.MarkNodesRequest{Nodes: []string{"n1"}, Offline: &off}); err != nil {
		t.Fatal(err)
	}

	id, err := c.Submit(ctx, job(nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(ctx, id, api.RunRequest{Vnodes: []string{"n1"}}); err != nil {
		t.Fatalf("qrun: %v", err)
	}
	// The work list long poll returns once the job is the host's.
	var work *api.WorkResponse
	var index uint64
	deadline := time.Now().Add(10 * time.Second)
	for {
		work, err = agent.Work(ctx, "n1", index, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if len(work.Jobs) == 1 || time.Now().After(deadline) {
			break
		}
		index = work.Index
	}
	if len(work.Jobs) != 1 || work.Jobs[0].ID != id {
		t.Fatalf("work list = %+v", work)
	}
	run := work.Jobs[0].RunCount
	ev := func(kind string, exit int) {
		t.Helper()
		if err := agent.Events(ctx, &api.EventsRequest{Host: "n1", Events: []api.JobEvent{{JobID: id, Kind: kind, Run: run, SessionID: 4242, Exit: exit,
			Used: map[string]string{"cput": "00:00:01", "walltime": "00:00:02"}}}}); err != nil {
			t.Fatalf("%s event: %v", kind, err)
		}
	}
	ev(api.EventStarted, 0)
	ev(api.EventEnded, 3)
	jobs, err := c.Jobs(ctx, []string{id}, true)
	if err != nil || len(jobs.Jobs) != 1 || jobs.Jobs[0].State != model.StateFinished || jobs.Jobs[0].Exit == nil || *jobs.Jobs[0].Exit != 3 {
		t.Fatalf("finished job = %+v, %v", jobs, err)
	}

	hooks, err := agent.AgentHooks(ctx)
	if err != nil || len(hooks.Hooks) != 0 {
		t.Fatalf("AgentHooks = %+v, %v", hooks, err)
	}
	wh, err := agent.WorkHooks(ctx, "n1", 0, 0, time.Millisecond)
	if err != nil || wh.HookVersion != 0 {
		t.Fatalf("WorkHooks = %+v, %v", wh, err)
	}
	// A failed agent hook with fail_action offline_vnodes offlines the
	// host's vnodes; clear_vnodes_upon_recovery brings them back.
	state := func() string {
		t.Helper()
		nodes, err := c.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return nodes.Vnodes[0].State.String() + "/" + nodes.Vnodes[0].Comment
	}
	if err := agent.HookAction(ctx, &api.HookActionRequest{Host: "n1", Hook: "chk", Event: "exechost_startup", Action: api.HookOffline}); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != "offline/offlined by hook 'chk' due to hook error" {
		t.Fatalf("after a hook offlined n1: %q", got)
	}
	if err := agent.HookAction(ctx, &api.HookActionRequest{Host: "n1", Hook: "chk", Event: "exechost_startup", Action: api.HookClear}); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != "free/" {
		t.Fatalf("after the hook cleared n1: %q", got)
	}
	err = agent.HookAction(ctx, &api.HookActionRequest{Host: "n1", Hook: "chk", Action: "explode"})
	wantPBS(t, "unknown hook action", err, model.PBSEInvalidRequest)
	st, err := c.ProvisionStatus(ctx)
	if err != nil || st.Enabled {
		t.Fatalf("ProvisionStatus = %+v, %v", st, err)
	}
}

// TestReservations: pbs_rsub, pbs_rstat and pbs_rdel through the client.
func TestReservations(t *testing.T) {
	needRoot(t)
	s := servertest.Start(t, nil)
	c, ctx := s.Root, ctxFor(t)
	start := time.Now().Add(time.Hour).Unix()
	id, err := c.SubmitResv(ctx, &api.ResvSubmitRequest{Token: "r1", Start: start, End: start + 600,
		Resources: map[string]string{"select": "1:ncpus=1"}, SubmitHost: "localhost"}, time.Second)
	if err != nil || id != "R0.svr" {
		t.Fatalf("SubmitResv = %q, %v", id, err)
	}
	rs, err := c.Resvs(ctx, []string{id}, false)
	if err != nil || len(rs.Resvs) != 1 || rs.Resvs[0].ID != id {
		t.Fatalf("Resvs = %+v, %v", rs, err)
	}
	_, err = c.Resvs(ctx, []string{"R99.svr"}, false)
	wantPBS(t, "pbs_rstat of an unknown reservation", err, model.PBSEUnknownResvID)
	_, err = c.SubmitResv(ctx, &api.ResvSubmitRequest{Token: "r2", Start: start, End: start - 10,
		Resources: map[string]string{"select": "1:ncpus=1"}}, 0)
	if _, ok := model.AsPBSError(err); !ok {
		t.Fatalf("a reservation ending before it starts: %v", err)
	}
	if err := c.DeleteResv(ctx, id); err != nil {
		t.Fatal(err)
	}
	wantPBS(t, "pbs_rdel of an unknown reservation", c.DeleteResv(ctx, "R99.svr"), model.PBSEUnknownResvID)
	gone, err := c.Resvs(ctx, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range gone.Resvs {
		if r.ID == id && r.Gone == 0 {
			t.Errorf("deleted reservation is not a tombstone: %+v", r.Reservation)
		}
	}
}

// TestConnectErrors: a server that cannot be reached is a ConnectError
// (the request was certainly not processed), for the socket and for TLS.
func TestConnectErrors(t *testing.T) {
	ctx := ctxFor(t)
	dir := t.TempDir()
	c := api.NewUnixClient(filepath.Join(dir, "none.sock"), "svr")
	_, err := c.Submit(ctx, job(nil), time.Second)
	var ce *api.ConnectError
	if !errors.As(err, &ce) || ce.Server != "svr" {
		t.Fatalf("submit to no socket: %v", err)
	}
	if ce.Error() == "" || ce.Unwrap() == nil {
		t.Error("empty ConnectError")
	}

	// An agent whose certificate comes from another CA is refused at the
	// handshake: a ConnectError that names TLS.
	needRoot(t)
	s := servertest.Start(t, nil)
	other := filepath.Join(dir, "other")
	if err := pki.Init(other, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	cert, key := pki.AgentFiles(other, "n1")
	if _, err := pki.Issue(other, pki.RoleAgent, []string{"n1"}, cert, key); err != nil {
		t.Fatal(err)
	}
	src, err := pki.NewSource(pki.Files{CA: filepath.Join(other, pki.CAFile), Cert: cert, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	stranger := api.NewTCPClient(s.Config.APIAddr, src)
	err = stranger.Heartbeat(ctx, &api.HeartbeatRequest{Host: "n1", BootID: "b"})
	if !errors.As(err, &ce) {
		t.Fatalf("agent of another CA: %v", err)
	}
}
