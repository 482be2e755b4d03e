package raftstore

import (
	"fmt"
	"io"
	"log"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
)

func provRegister(h *harness, host, boot string, image *string) {
	h.apply(&RegisterHost{Host: host, BootID: boot, Now: 10, ImageAOE: image, Vnodes: []*model.Vnode{{
		Name: host, ProvisionEnable: true, Available: map[string]string{"ncpus": "2", "mem": "4gb", "host": host, "vnode": host, "aoe": "os1,os2"},
	}}})
}

func provRun(h *harness, id, host, aoe string) {
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: host, Host: host, AOE: aoe, Amounts: map[string]float64{"ncpus": 2}}}}}}}})
}

func TestProvisionOSLifecycle(t *testing.T) {
	h := newHarness(t)
	provRegister(h, "n1", "b1", nil)
	h.apply(&SubmitJob{Job: testJob("a"), Now: 100})
	provRun(h, "0.svr", "n1", "os2")
	s := h.snap()
	if j := s.Job("0.svr"); j.State != model.StateRunning || j.Substate != model.SubProvisioning {
		t.Fatalf("job %s/%d, want R/71", j.State, j.Substate)
	}
	if v := s.Vnode("n1"); v.State != model.NodeWaitProvisioning|model.NodeJobBusy || v.State.String() != "wait-provisioning" {
		t.Fatalf("vnode %s", v.State)
	}
	if err := refuseProvisioning(s.Job("0.svr"), false); err == nil {
		t.Fatal("qhold on a provisioning job accepted")
	}
	res := h.apply(&ProvisionStart{Host: "n1", Mode: model.ProvModeAgent, Alarm: 60, Now: 210}).(*ProvisionStartResult)
	if res.Op == nil || res.Op.Attempt != 1 || res.Op.BootID != "b1" {
		t.Fatalf("start: %+v", res.Op)
	}
	h.apply(&ProvisionResult{Host: "n1", Attempt: 1, Kind: ProvHookExited, Exit: 0, Now: 220})
	if op := h.snap().ProvOp("n1"); op.State != model.ProvRebooting {
		t.Fatalf("after exit 0: %+v", op)
	}
	provRegister(h, "n1", "b1", nil) // same boot: not done
	if h.snap().ProvOp("n1") == nil {
		t.Fatal("completed without a new boot id")
	}
	img := "os2"
	provRegister(h, "n1", "b2", &img)
	s = h.snap()
	if s.ProvOp("n1") != nil || s.Job("0.svr").Substate != model.SubPrerun || s.Vnode("n1").CurrentAOE != "os2" || s.Vnode("n1").State&model.NodeProvisioning != 0 {
		t.Fatalf("not completed: op %+v job %d vnode %+v", s.ProvOp("n1"), s.Job("0.svr").Substate, s.Vnode("n1"))
	}
	if st := s.ProvStats(); len(st) != 1 || st[0].Successes != 1 || st[0].LastSecs != 0 {
		t.Fatalf("stats %+v", st[0])
	}
}

func TestProvisionFailuresAndDetach(t *testing.T) {
	h := newHarness(t)
	provRegister(h, "n1", "b1", nil)
	provRegister(h, "n2", "b1", nil)
	h.apply(&SubmitJob{Job: testJob("a"), Now: 100})
	h.apply(&SubmitJob{Job: testJob("b"), Now: 100})
	provRun(h, "0.svr", "n1", "os2")
	provRun(h, "1.svr", "n2", "os2")
	// Hook failure: vnode offline, job requeued.
	h.apply(&ProvisionStart{Host: "n1", Alarm: 60, Now: 210})
	h.apply(&ProvisionResult{Host: "n1", Attempt: 1, Kind: ProvHookExited, Exit: 3, Now: 220})
	s := h.snap()
	if v := s.Vnode("n1"); v.State&model.NodeOffline == 0 || v.Comment != model.MsgVnodeProvFailed {
		t.Fatalf("vnode %s %q", v.State, v.Comment)
	}
	if j := s.Job("0.svr"); j.State != model.StateQueued {
		t.Fatalf("job %s", j.State)
	}
	// Mismatch: held with PBS's comment.
	h.apply(&ProvisionStart{Host: "n2", Alarm: 60, Now: 230})
	h.apply(&ProvisionResult{Host: "n2", Attempt: 1, Kind: ProvHookExited, Exit: 0, Now: 240})
	other := "os1"
	provRegister(h, "n2", "b9", &other)
	if j := h.snap().Job("1.svr"); j.State != model.StateHeld || j.Comment != model.MsgProvFailedStart {
		t.Fatalf("mismatch: %s %q", j.State, j.Comment)
	}
	// qdel -W force while waiting: the operation is dropped.
	provRegister(h, "n3", "b1", nil)
	h.apply(&SubmitJob{Job: testJob("c"), Now: 100})
	provRun(h, "2.svr", "n3", "os1")
	h.apply(&DeleteJob{JobID: "2.svr", Requestor: "root", Force: true, Now: 300})
	if s := h.snap(); s.ProvOp("n3") != nil || s.Vnode("n3").State != 0 {
		t.Fatalf("after force delete: %+v %s", s.ProvOp("n3"), s.Vnode("n3").State)
	}
}

// BenchmarkProvisionDispatch measures the replicated side of the
// dispatcher with thousands of queued operations: each iteration queues
// 2000 hosts' operations, then starts and completes every one (one FSM
// entry each), with max_concurrent_provision = 50.
func BenchmarkProvisionDispatch(b *testing.B) {
	const hosts = 2000
	f, _ := NewFSM(log.New(io.Discard, "", 0), nil)
	var index uint64
	apply := func(c Command) any {
		data, _ := Encode(c)
		index++
		return f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: data})
	}
	apply(&SetServerConfig{Config: model.ServerConfig{Name: "svr", Defs: model.BuiltinResources(), DefaultQueue: "workq",
		MaxConcurrentProvision: 50, Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}}}, Now: 1})
	for i := 0; i < hosts; i++ {
		h := fmt.Sprintf("n%d", i)
		apply(&RegisterHost{Host: h, BootID: "b", Now: 1, Vnodes: []*model.Vnode{{Name: h, ProvisionEnable: true,
			Available: map[string]string{"ncpus": "1", "host": h, "vnode": h, "aoe": "app"}}}})
	}
	b.ResetTimer()
	ops := 0
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		var runs []model.RunDecision
		for i := 0; i < hosts; i++ {
			id := apply(&SubmitJob{Job: testJob(fmt.Sprintf("t%d-%d", n, i)), Now: 2}).(string)
			h := fmt.Sprintf("n%d", i)
			runs = append(runs, model.RunDecision{JobID: id, Exec: []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: h, Host: h, AOE: "app", Amounts: map[string]float64{"ncpus": 1}}}}}})
		}
		apply(&ApplyPlan{Now: 3, Runs: runs})
		// Make the vnodes provisionable again next round.
		b.StartTimer()
		snap := f.State().Snapshot()
		for _, op := range snap.ProvOps() {
			r := apply(&ProvisionStart{Host: op.Host, Alarm: 60, Now: 4}).(*ProvisionStartResult)
			if r.Op == nil {
				b.Fatalf("start %s refused", op.Host)
			}
			apply(&ProvisionResult{Host: op.Host, Attempt: r.Op.Attempt, Kind: ProvHookExited, Exit: 1, Now: 5})
			ops++
		}
		b.StopTimer()
		for _, j := range f.State().Snapshot().JobsInState(model.StateRunning) {
			apply(&DeleteJob{JobID: j.ID, Force: true, Requestor: "root", Now: 6})
		}
		for i := 0; i < hosts; i++ {
			h := fmt.Sprintf("n%d", i)
			apply(&RegisterHost{Host: h, BootID: "b", Now: 7, ImageAOE: new(string), Vnodes: []*model.Vnode{{Name: h, ProvisionEnable: true,
				Available: map[string]string{"ncpus": "1", "host": h, "vnode": h, "aoe": "app"}}}})
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}
