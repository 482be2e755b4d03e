package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore/manager"
)

func manage(h *harness, now int64, verb, object, name string, attrs ...model.ManagerAttr) any {
	h.t.Helper()
	return h.apply(&Manage{Request: model.ManagerRequest{Verb: verb, Object: object, Name: name, Attrs: attrs}, Now: now})
}

func set(name, value string) model.ManagerAttr {
	return model.ManagerAttr{Name: name, Op: "=", Value: value}
}

// TestManageQueueAndRefusal: an accepted operation changes the replicated
// configuration; a refused one returns its PBS error and changes nothing.
func TestManageQueueAndRefusal(t *testing.T) {
	h := newHarness(t)
	if r := manage(h, 5, manager.Create, manager.Queue, "big", set("queue_type", "execution"), set("priority", "10")); r != nil {
		t.Fatalf("create queue: %v", r)
	}
	q, ok := h.snap().Config().Queues["big"]
	if !ok || q.Priority != 10 {
		t.Fatalf("queue after create: %+v", q)
	}
	before := h.snap().Config()
	if code := pbsCode(manage(h, 6, manager.Create, manager.Queue, "big")); code != manager.PBSEQueueExists {
		t.Errorf("duplicate queue: code %d", code)
	}
	// One bad attribute refuses the whole request.
	if code := pbsCode(manage(h, 7, manager.Set, manager.Queue, "big", set("priority", "20"), set("nonsense", "1"))); code != model.PBSENoAttr {
		t.Errorf("unknown attribute: code %d", code)
	}
	if got := h.snap().Config().Queues["big"].Priority; got != before.Queues["big"].Priority {
		t.Errorf("refused request changed priority to %d", got)
	}
}

// TestManageNodeStateAndDelete: qmgr node changes reach the vnode row with
// the time of the change.
func TestManageNodeStateAndDelete(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	if r := manage(h, 50, manager.Set, manager.Node, "node1",
		model.ManagerAttr{Name: "state", Op: "+=", Value: "offline"}, set("comment", "disk check")); r != nil {
		t.Fatalf("offline: %v", r)
	}
	v := h.snap().Vnode("node1")
	if v.State&model.NodeOffline == 0 || v.LastStateChange != 50 || v.Comment != "disk check" {
		t.Errorf("after offline: state %v changed %d comment %q", v.State, v.LastStateChange, v.Comment)
	}
	if r := manage(h, 60, manager.Set, manager.Node, "node1", model.ManagerAttr{Name: "state", Op: "-=", Value: "offline"}); r != nil {
		t.Fatalf("clear: %v", r)
	}
	if v := h.snap().Vnode("node1"); v.State&model.NodeOffline != 0 || v.LastStateChange != 60 {
		t.Errorf("after clear: state %v changed %d", v.State, v.LastStateChange)
	}
	if r := manage(h, 70, manager.Delete, manager.Node, "node1"); r != nil {
		t.Fatalf("delete node: %v", r)
	}
	if h.snap().Vnode("node1") != nil {
		t.Error("deleted vnode still stored")
	}
}

// TestManageResourceBumpsEpoch: a new resource definition moves the epoch
// (the scheduler's cue) and vnode capacities are derived again.
func TestManageResourceBumpsEpoch(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "node1", "4")
	epoch := h.snap().Epoch()
	if r := manage(h, 5, manager.Create, manager.Resource, "scratch", set("type", "size"), set("flag", "nh")); r != nil {
		t.Fatalf("create resource: %v", r)
	}
	if _, ok := h.snap().Config().Defs["scratch"]; !ok || h.snap().Epoch() <= epoch {
		t.Errorf("resource not defined or epoch not moved (%d -> %d)", epoch, h.snap().Epoch())
	}
	if r := manage(h, 6, manager.Set, manager.Node, "node1", model.ManagerAttr{Name: "resources_available", Resource: "scratch", Op: "=", Value: "10gb"}); r != nil {
		t.Fatalf("set scratch: %v", r)
	}
	if c := h.snap().Vnode("node1").Capacity["scratch"]; c <= 0 {
		t.Errorf("scratch capacity %v", c)
	}
}

// TestManageHookVersion: only hooks with an agent event move hook_version
// and the agent-hooks index the agents' work polls watch.
func TestManageHookVersion(t *testing.T) {
	h := newHarness(t)
	idx := func() uint64 { i, _ := h.snap().TableIndex(AgentHooksKey); return i }
	manage(h, 5, manager.Create, manager.Hook, "srv", set("event", "queuejob"))
	if v := h.snap().Config().HookVersion; v != 0 || idx() != 0 {
		t.Fatalf("server hook moved hook_version to %d (index %d)", v, idx())
	}
	manage(h, 6, manager.Create, manager.Hook, "beg", set("event", "execjob_begin"))
	v1, i1 := h.snap().Config().HookVersion, idx()
	if v1 == 0 || i1 == 0 {
		t.Fatalf("agent hook: version %d index %d", v1, i1)
	}
	h.apply(&Manage{Request: model.ManagerRequest{Verb: manager.Import, Object: manager.Hook, Name: "beg",
		ContentType: "application/x-executable", Content: "#!/bin/sh\nexit 0\n"}, Now: 7})
	if v := h.snap().Config().HookVersion; v <= v1 || idx() <= i1 {
		t.Errorf("import did not move the version: %d -> %d", v1, v)
	}
	v2 := h.snap().Config().HookVersion
	// A refused change moves nothing.
	if code := pbsCode(manage(h, 8, manager.Set, manager.Hook, "beg", set("order", "5000"))); code != model.PBSEBadAttrVal {
		t.Errorf("order out of range: code %d", code)
	}
	manage(h, 9, manager.Delete, manager.Hook, "beg")
	if v := h.snap().Config().HookVersion; v <= v2 {
		t.Errorf("delete did not move the version: %d -> %d", v2, v)
	}
}
