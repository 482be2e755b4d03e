package manager

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// fakeVnodes is a VnodeSource over a map.
type fakeVnodes struct {
	vnodes    map[string]*model.Vnode
	queueJobs map[string]int
}

func (f fakeVnodes) Vnode(name string) *model.Vnode { return f.vnodes[name] }
func (f fakeVnodes) Vnodes() []*model.Vnode {
	var out []*model.Vnode
	for _, n := range model.SortedKeys(f.vnodes) {
		out = append(out, f.vnodes[n])
	}
	return out
}
func (f fakeVnodes) QueueJobs(q string) int { return f.queueJobs[q] }

func baseConfig() model.ServerConfig {
	return model.ServerConfig{
		Name: "svr", Defs: model.BuiltinResources(), DefaultQueue: "workq",
		Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}},
		Hooks:  map[string]model.Hook{},
	}
}

func testVnodes() fakeVnodes {
	mk := func(name string, avail map[string]string, jobs ...string) *model.Vnode {
		js := map[string]int{}
		for _, j := range jobs {
			js[j] = 1
		}
		a := map[string]string{"host": name, "vnode": name, "ncpus": "4"}
		for k, v := range avail {
			a[k] = v
		}
		return &model.Vnode{Name: name, Host: name, Mom: name, Available: a, Admin: map[string]string{}, Jobs: js}
	}
	return fakeVnodes{
		vnodes: map[string]*model.Vnode{
			"n1":    mk("n1", map[string]string{"aoe": "rhel,sles"}),
			"busy":  mk("busy", nil, "1.svr"),
			"head":  mk("head", nil),
			"provn": func() *model.Vnode { v := mk("provn", nil); v.State = model.NodeProvisioning; return v }(),
		},
		queueJobs: map[string]int{"workq": 2},
	}
}

func a(name, op, value string) Attr {
	if n, r, ok := strings.Cut(name, "."); ok {
		return Attr{Name: n, Resource: r, Op: op, Value: value}
	}
	return Attr{Name: name, Op: op, Value: value}
}

// TestApplyRules checks each object's PBS rules: the error code and the
// message qmgr shows (substring), or success.
func TestApplyRules(t *testing.T) {
	hookCfg := baseConfig()
	hookCfg.Hooks["prov"] = model.Hook{Name: "prov", Events: []string{"provision"}, Enabled: true, User: "pbsadmin", Alarm: 30, Order: 1, FailAction: "none", Freq: 120}
	hookCfg.Hooks["h1"] = model.Hook{Name: "h1", Enabled: true, User: "pbsadmin", Alarm: 30, Order: 1, FailAction: "none", Freq: 120}
	cases := []struct {
		name string
		cfg  *model.ServerConfig
		req  Request
		code int
		msg  string
	}{
		// server
		{"server unknown attribute", nil, Request{Verb: Set, Object: Server, Attrs: []Attr{a("bogus", "=", "1")}}, model.PBSENoAttr, "bogus"},
		{"default_queue must exist", nil, Request{Verb: Set, Object: Server, Attrs: []Attr{a("default_queue", "=", "nosuch")}}, model.PBSEUnknownQueue, ""},
		{"max_concurrent_provision > 0", nil, Request{Verb: Set, Object: Server, Attrs: []Attr{a("max_concurrent_provision", "=", "0")}}, model.PBSEBadAttrVal, ""},
		{"resources_default unknown resource", nil, Request{Verb: Set, Object: Server, Attrs: []Attr{a("resources_default.nosuch", "=", "1")}}, model.PBSEUnknownResource, ""},
		{"server create refused", nil, Request{Verb: Create, Object: Server}, model.PBSEInvalidRequest, ""},
		{"managers ok", nil, Request{Verb: Set, Object: Server, Attrs: []Attr{a("managers", "+=", "alice@*")}}, 0, ""},
		// queue
		{"queue exists", nil, Request{Verb: Create, Object: Queue, Name: "workq"}, PBSEQueueExists, "Queue already exists"},
		{"queue with jobs not deleted", nil, Request{Verb: Delete, Object: Queue, Name: "workq"}, PBSEObjBusy, "queue has jobs"},
		{"unknown queue", nil, Request{Verb: Set, Object: Queue, Name: "nosuch", Attrs: []Attr{a("enabled", "=", "true")}}, model.PBSEUnknownQueue, ""},
		{"queue_type value", nil, Request{Verb: Set, Object: Queue, Name: "workq", Attrs: []Attr{a("queue_type", "=", "sideways")}}, model.PBSEBadAttrVal, "queue_type"},
		{"enabled boolean", nil, Request{Verb: Set, Object: Queue, Name: "workq", Attrs: []Attr{a("enabled", "=", "maybe")}}, model.PBSEBadAttrVal, "enabled"},
		{"queue create ok", nil, Request{Verb: Create, Object: Queue, Name: "q2", Attrs: []Attr{a("queue_type", "=", "e"), a("priority", "=", "5")}}, 0, ""},
		// node
		{"node exists", nil, Request{Verb: Create, Object: Node, Name: "n1"}, PBSENodeExists, "Node name already exists"},
		{"unknown node", nil, Request{Verb: Set, Object: Node, Name: "nosuch", Attrs: []Attr{a("comment", "=", "x")}}, model.PBSEUnknownNode, ""},
		{"node with jobs not deleted", nil, Request{Verb: Delete, Object: Node, Name: "busy"}, PBSEObjBusy, "node has jobs"},
		{"provisioning node not deleted", nil, Request{Verb: Delete, Object: Node, Name: "provn"}, PBSENodeProvNoDel, "Cannot delete vnode if vnode is provisioning"},
		{"provisioning node state", nil, Request{Verb: Set, Object: Node, Name: "provn", Attrs: []Attr{a("state", "=", "offline")}}, PBSENodeProv, "Cannot change state of provisioning vnode"},
		{"bad state", nil, Request{Verb: Set, Object: Node, Name: "n1", Attrs: []Attr{a("state", "=", "busy")}}, model.PBSEBadAttrVal, "state"},
		{"current_aoe not offered", nil, Request{Verb: Set, Object: Node, Name: "n1", Attrs: []Attr{a("current_aoe", "=", "win")}}, PBSENodeBadCurAOE, "Current AOE does not match with resources_available.aoe"},
		{"current_aoe offered", nil, Request{Verb: Set, Object: Node, Name: "n1", Attrs: []Attr{a("current_aoe", "=", "sles")}}, 0, ""},
		{"provisioning attribute on server host", nil, Request{Verb: Set, Object: Node, Name: "head", ServerHost: "head", Attrs: []Attr{a("provision_enable", "=", "true")}}, PBSEProvHeadError, "Cannot set provisioning attribute on host running PBS server and scheduler"},
		{"sort_priority range", nil, Request{Verb: Set, Object: Node, Name: "n1", Attrs: []Attr{a("sort_priority", "=", "5000")}}, model.PBSEBadAttrVal, "sort_priority"},
		{"resources_available.host read-only", nil, Request{Verb: Set, Object: Node, Name: "n1", Attrs: []Attr{a("resources_available.host", "=", "x")}}, model.PBSEAttrRO, ""},
		// resource
		{"resource exists", nil, Request{Verb: Create, Object: Resource, Name: "ncpus"}, PBSEResourceExists, "Duplicate entry in resource definition"},
		{"builtin resource not deleted", nil, Request{Verb: Delete, Object: Resource, Name: "ncpus"}, model.PBSEPerm, "built-in resource"},
		{"resource bad type", nil, Request{Verb: Create, Object: Resource, Name: "foo", Attrs: []Attr{a("type", "=", "complex")}}, model.PBSEBadAttrVal, "Illegal attribute or resource value"},
		{"resource unknown attribute", nil, Request{Verb: Create, Object: Resource, Name: "foo", Attrs: []Attr{a("color", "=", "red")}}, model.PBSENoAttr, "color"},
		{"resource ok", nil, Request{Verb: Create, Object: Resource, Name: "scratch", Attrs: []Attr{a("type", "=", "size"), a("flag", "=", "nh")}}, 0, ""},
		// sched
		{"only the default scheduler", nil, Request{Verb: Set, Object: Sched, Name: "other", Attrs: []Attr{a("by_queue", "=", "true")}}, model.PBSEInvalidRequest, "the only scheduler is default"},
		{"provision_policy value", nil, Request{Verb: Set, Object: Sched, Attrs: []Attr{a("provision_policy", "=", "sometimes")}}, model.PBSEBadAttrVal, "provision_policy"},
		// hook
		{"hook exists", &hookCfg, Request{Verb: Create, Object: Hook, Name: "h1"}, PBSEHookError, "hook name 'h1' already registered"},
		{"hook name PBS reserved", nil, Request{Verb: Create, Object: Hook, Name: "PBSx"}, PBSEHookError, "invalid hook name"},
		{"hook unknown event", nil, Request{Verb: Create, Object: Hook, Name: "x", Attrs: []Attr{a("event", "=", "lunch")}}, PBSEHookError, "invalid argument (lunch) to event"},
		{"second provision hook", &hookCfg, Request{Verb: Set, Object: Hook, Name: "h1", Attrs: []Attr{a("event", "=", "provision")}}, PBSEHookError, "Another hook 'prov' already has event 'provision', only one 'provision' hook allowed"},
		{"provision exclusive", &hookCfg, Request{Verb: Set, Object: Hook, Name: "prov", Attrs: []Attr{a("event", "+=", "queuejob")}}, PBSEHookError, "Event provision is exclusive with other events, and only one provision hook allowed"},
		{"hook user", nil, Request{Verb: Create, Object: Hook, Name: "x", Attrs: []Attr{a("user", "=", "bob")}}, PBSEHookError, "user value must be pbsadmin or pbsuser"},
		{"scheduler_restart_cycle needs execjob_begin only", nil, Request{Verb: Create, Object: Hook, Name: "x", Attrs: []Attr{a("event", "=", "execjob_end"), a("fail_action", "=", "scheduler_restart_cycle")}}, PBSEHookError, "hook event must contain only 'execjob_begin'"},
		{"clear_vnodes needs exechost_startup", nil, Request{Verb: Create, Object: Hook, Name: "x", Attrs: []Attr{a("event", "=", "execjob_begin"), a("fail_action", "=", "clear_vnodes_upon_recovery")}}, PBSEHookError, "hook event must contain 'exechost_startup'"},
		{"import unknown hook", nil, Request{Verb: Import, Object: Hook, Name: "nosuch", ContentType: "application/x-python", Content: "x"}, PBSEHookError, "nosuch does not exist!"},
		{"import bad content type", &hookCfg, Request{Verb: Import, Object: Hook, Name: "h1", ContentType: "text/plain", Content: "x"}, PBSEHookError, "<content-type> must be"},
		{"agent hook ok", nil, Request{Verb: Create, Object: Hook, Name: "x", Attrs: []Attr{a("event", "=", "execjob_begin,execjob_end"), a("fail_action", "=", "offline_vnodes"), a("alarm", "=", "5")}}, 0, ""},
		// objects
		{"unknown object", nil, Request{Verb: Set, Object: "planet", Name: "x"}, model.PBSEInvalidRequest, "unknown object type planet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := baseConfig()
			if tc.cfg != nil {
				cfg = tc.cfg.Copy()
			}
			before := cfg.Copy()
			res, err := Apply(cfg, testVnodes(), &tc.req)
			if tc.code == 0 {
				if err != nil || res == nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			pe, ok := model.AsPBSError(err)
			if !ok || pe.Code != tc.code || !strings.Contains(pe.Error(), tc.msg) {
				t.Fatalf("want code %d with %q, got %v (%#v)", tc.code, tc.msg, err, err)
			}
			if res != nil {
				t.Errorf("refused request returned a result")
			}
			// Apply must never mutate its input.
			if len(cfg.Queues) != len(before.Queues) || len(cfg.Hooks) != len(before.Hooks) || cfg.HookVersion != before.HookVersion {
				t.Errorf("input configuration changed")
			}
		})
	}
}

// TestHookVersionMovesForAgentHooksOnly: hook_version is the agents'
// delivery signal.
func TestHookVersionMovesForAgentHooksOnly(t *testing.T) {
	cfg := baseConfig()
	step := func(req Request) {
		t.Helper()
		res, err := Apply(cfg, testVnodes(), &req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		cfg = res.Config
	}
	step(Request{Verb: Create, Object: Hook, Name: "q", Attrs: []Attr{a("event", "=", "queuejob")}})
	step(Request{Verb: Import, Object: Hook, Name: "q", ContentType: "application/x-python", Content: "pass"})
	if cfg.HookVersion != 0 {
		t.Fatalf("server hook moved hook_version to %d", cfg.HookVersion)
	}
	step(Request{Verb: Set, Object: Hook, Name: "q", Attrs: []Attr{a("event", "+=", "execjob_prologue")}})
	if cfg.HookVersion != 1 {
		t.Fatalf("gaining an agent event: hook_version %d", cfg.HookVersion)
	}
	// Losing the agent event is a change agents must see too.
	step(Request{Verb: Set, Object: Hook, Name: "q", Attrs: []Attr{a("event", "=", "queuejob")}})
	if cfg.HookVersion != 2 {
		t.Fatalf("losing an agent event: hook_version %d", cfg.HookVersion)
	}
}
