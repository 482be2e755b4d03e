package api_test

// The multiplexed routes of simulated hosts and the simulator
// certificate's reach, attacked from both sides: a simulator naming a host
// outside its prefix, and a real agent's certificate trying the
// simulator's routes or another host.

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/servertest"
)

func register(host string) *api.RegisterRequest {
	return &api.RegisterRequest{Host: host, BootID: "b1", Version: api.PBSVersion, Pcpus: 2,
		Vnodes: []api.VnodeSpec{{Name: host, Resources: map[string]string{"ncpus": "2", "mem": "4gb"}}}, Jobs: []string{}}
}

// TestSimulatorReach: a simulator certificate for prefix "sim" registers,
// heartbeats and polls for sim-<digits> hosts and is refused every other
// host name, including a real host's and look-alikes.
func TestSimulatorReach(t *testing.T) {
	needRoot(t)
	s := servertest.Start(t, nil)
	ctx := ctxFor(t)
	sim := s.Simulator(t, "sim")
	for _, h := range []string{"sim-00001", "sim-2"} {
		if _, err := sim.Register(ctx, register(h)); err != nil {
			t.Fatalf("register %s: %v", h, err)
		}
	}
	hb, err := sim.SimHeartbeat(ctx, &api.SimHeartbeatRequest{Hosts: []api.HeartbeatRequest{{Host: "sim-00001", BootID: "b1"}, {Host: "sim-2", BootID: "old"}, {Host: "sim-3", BootID: "b1"}}})
	if err != nil {
		t.Fatalf("sim heartbeat: %v", err)
	}
	if len(hb.Register) != 2 || hb.Register[0] != "sim-2" || hb.Register[1] != "sim-3" {
		t.Fatalf("hosts told to register again = %v, want [sim-2 sim-3] (wrong boot id, unknown)", hb.Register)
	}
	w, err := sim.SimWork(ctx, map[string]uint64{"sim-00001": 0, "sim-2": 0}, time.Second)
	if err != nil || len(w.Hosts) != 2 {
		t.Fatalf("first sim work poll: %v %v, want both hosts answered", w, err)
	}
	// Nothing changed: the poll waits and answers with no host.
	idx := map[string]uint64{"sim-00001": w.Hosts["sim-00001"].Index, "sim-2": w.Hosts["sim-2"].Index}
	start := time.Now()
	if w, err = sim.SimWork(ctx, idx, 300*time.Millisecond); err != nil || len(w.Hosts) != 0 || time.Since(start) < 250*time.Millisecond {
		t.Fatalf("idle sim work poll: %v %v after %v, want an empty answer after the wait", w, err, time.Since(start))
	}

	// A real agent exists; the simulator may not speak for it, nor for
	// look-alike names outside sim-<digits>.
	node1 := s.Agent(t, "node1")
	if _, err := node1.Register(ctx, register("node1")); err != nil {
		t.Fatalf("register node1: %v", err)
	}
	for _, h := range []string{"node1", "sim", "sim-", "sim-1x", "simx-1", "sim-1234567890", "sim-1.node1", "xsim-1", "sim--1"} {
		_, err := sim.Register(ctx, register(h))
		wantPBS(t, "simulator registers "+h, err, model.PBSEPerm)
		err = sim.Heartbeat(ctx, &api.HeartbeatRequest{Host: h, BootID: "b1"})
		wantPBS(t, "simulator heartbeat for "+h, err, model.PBSEPerm)
		_, err = sim.SimHeartbeat(ctx, &api.SimHeartbeatRequest{Hosts: []api.HeartbeatRequest{{Host: "sim-00001", BootID: "b1"}, {Host: h, BootID: "b1"}}})
		wantPBS(t, "simulator batch heartbeat naming "+h, err, model.PBSEPerm)
		_, err = sim.SimWork(ctx, map[string]uint64{"sim-00001": 0, h: 0}, time.Second)
		wantPBS(t, "simulator work poll naming "+h, err, model.PBSEPerm)
		_, err = sim.SimEvents(ctx, &api.SimEventsRequest{Batches: []api.EventsRequest{{Host: h, Events: []api.JobEvent{}}}})
		wantPBS(t, "simulator events for "+h, err, model.PBSEPerm)
		_, err = sim.Work(ctx, h, 0, time.Millisecond)
		wantPBS(t, "simulator single work poll for "+h, err, model.PBSEPerm)
	}

	// The real agent keeps its isolation: no multiplexed route, even for
	// its own host, and no simulated host.
	_, err = node1.SimHeartbeat(ctx, &api.SimHeartbeatRequest{Hosts: []api.HeartbeatRequest{{Host: "node1", BootID: "b1"}}})
	wantPBS(t, "agent uses the simulator's heartbeat route", err, model.PBSEPerm)
	_, err = node1.SimWork(ctx, map[string]uint64{"node1": 0}, time.Millisecond)
	wantPBS(t, "agent uses the simulator's work route", err, model.PBSEPerm)
	_, err = node1.SimEvents(ctx, &api.SimEventsRequest{Batches: []api.EventsRequest{{Host: "node1"}}})
	wantPBS(t, "agent uses the simulator's events route", err, model.PBSEPerm)
	_, err = node1.Register(ctx, register("sim-00009"))
	wantPBS(t, "agent registers a simulated host", err, model.PBSEPerm)
	_, err = node1.Work(ctx, "sim-00001", 0, time.Millisecond)
	wantPBS(t, "agent polls a simulated host's work", err, model.PBSEPerm)

	// The simulator's vnodes cannot take over a real host's vnode by name.
	req := register("sim-00003")
	req.Vnodes[0].Name = "node1"
	_, err = sim.Register(ctx, req)
	wantPBS(t, "simulator registers node1's vnode", err, model.PBSEPerm)
	// No user rights: the simulator cannot use user routes.
	_, err = sim.Jobs(ctx, nil, false)
	wantPBS(t, "simulator lists jobs", err, model.PBSEPerm)
}

// TestSimulatorCannotReportRealHostsJobs: a job running on a real agent's
// host cannot be ended by the simulator, whatever host it files the
// report under.
func TestSimulatorCannotReportRealHostsJobs(t *testing.T) {
	needRoot(t)
	s := servertest.Start(t, nil)
	ctx := ctxFor(t)
	node1, sim := s.Agent(t, "node1"), s.Simulator(t, "sim")
	if _, err := node1.Register(ctx, register("node1")); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Register(ctx, register("sim-1")); err != nil {
		t.Fatal(err)
	}
	id, err := s.Root.Submit(ctx, job(nil), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Root.Run(ctx, id, api.RunRequest{Vnodes: []string{"node1"}}); err != nil {
		t.Fatalf("qrun -H node1: %v", err)
	}
	ended := api.JobEvent{JobID: id, Kind: api.EventEnded, Run: 1, Exit: 0}
	resp, err := sim.SimEvents(ctx, &api.SimEventsRequest{Batches: []api.EventsRequest{{Host: "sim-1", Events: []api.JobEvent{ended}}}})
	if err != nil || resp.Failed["sim-1"] == "" {
		t.Fatalf("simulator ends node1's job as sim-1: %v %v, want the batch refused", resp, err)
	}
	err = sim.Events(ctx, &api.EventsRequest{Host: "sim-1", Events: []api.JobEvent{ended}})
	wantPBS(t, "simulator ends node1's job through the single route", err, model.PBSEPerm)
	js, err := s.Root.Jobs(ctx, []string{id}, false)
	if err != nil || len(js.Jobs) != 1 || js.Jobs[0].State != model.StateRunning {
		t.Fatalf("job after the attempts: %v %v, want still running", js, err)
	}
}
