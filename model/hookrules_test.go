package model

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckHook: the PBS rules on hook settings, with the text qmgr shows.
func TestCheckHook(t *testing.T) {
	ok := func(mod func(*Hook)) Hook {
		h := DefaultHook("h")
		if mod != nil {
			mod(&h)
		}
		return h
	}
	prov := DefaultHook("prov")
	prov.Events = []string{"provision"}
	for _, tc := range []struct {
		name   string
		hook   Hook
		others map[string]Hook
		want   string // "" means accepted
	}{
		{"defaults", ok(nil), nil, ""},
		{"agent and server events", ok(func(h *Hook) { h.Events = []string{"queuejob", "execjob_begin"} }), nil, ""},
		{"unknown event", ok(func(h *Hook) { h.Events = []string{"lunch"} }), nil, "invalid argument (lunch) to event"},
		{"provision exclusive", ok(func(h *Hook) { h.Events = []string{"provision", "runjob"} }), nil, "Event provision is exclusive"},
		{"second provision hook", ok(func(h *Hook) { h.Events = []string{"provision"} }), map[string]Hook{"prov": prov}, "Another hook 'prov' already has event 'provision'"},
		{"same provision hook again", ok(func(h *Hook) { h.Name = "prov"; h.Events = []string{"provision"} }), map[string]Hook{"prov": prov}, ""},
		{"order 0", ok(func(h *Hook) { h.Order = 0 }), nil, "order value out of range"},
		{"order 1001", ok(func(h *Hook) { h.Order = 1001 }), nil, "order value out of range"},
		{"alarm 0", ok(func(h *Hook) { h.Alarm = 0 }), nil, "alarm value must be > 0"},
		{"freq 0", ok(func(h *Hook) { h.Freq = 0 }), nil, "freq value must be > 0"},
		{"user", ok(func(h *Hook) { h.User = "root" }), nil, "user value must be pbsadmin or pbsuser"},
		{"pbsuser", ok(func(h *Hook) { h.User = "pbsuser" }), nil, ""},
		{"fail_action unknown", ok(func(h *Hook) { h.FailAction = "explode" }), nil, "invalid fail_action value: explode"},
		{"scheduler_restart_cycle with execjob_begin", ok(func(h *Hook) {
			h.Events, h.FailAction = []string{"execjob_begin"}, HookFailSchedulerCycle
		}), nil, ""},
		{"scheduler_restart_cycle elsewhere", ok(func(h *Hook) {
			h.Events, h.FailAction = []string{"execjob_end"}, HookFailSchedulerCycle
		}), nil, "hook event must contain only 'execjob_begin'"},
		{"clear_vnodes with exechost_startup", ok(func(h *Hook) {
			h.Events, h.FailAction = []string{"exechost_startup"}, HookFailOfflineVnodes+","+HookFailClearVnodes
		}), nil, ""},
		{"clear_vnodes without exechost_startup", ok(func(h *Hook) {
			h.Events, h.FailAction = []string{"execjob_begin"}, HookFailClearVnodes
		}), nil, "hook event must contain 'exechost_startup'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckHook(&tc.hook, tc.others)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHookEvents(t *testing.T) {
	for _, e := range HookServerEvents {
		if !KnownHookEvent(e) || IsAgentHookEvent(e) {
			t.Errorf("server event %s", e)
		}
	}
	for _, e := range HookAgentEvents {
		if !KnownHookEvent(e) || !IsAgentHookEvent(e) {
			t.Errorf("agent event %s", e)
		}
	}
	if KnownHookEvent("lunch") {
		t.Error("lunch is an event")
	}
	h := DefaultHook("h")
	if HookRunsOnAgents(&h) {
		t.Error("a hook without events runs on agents")
	}
	h.Events = []string{"queuejob", "execjob_end"}
	if !HookRunsOnAgents(&h) || !h.HasEvent("queuejob") || h.HasEvent("runjob") {
		t.Errorf("events %v", h.Events)
	}
}

// TestOrderedHooks: enabled hooks with a script for the event, by order
// then name.
func TestOrderedHooks(t *testing.T) {
	mk := func(name string, order int, enabled bool, script string, events ...string) Hook {
		h := DefaultHook(name)
		h.Order, h.Enabled, h.Script, h.Events = order, enabled, script, events
		return h
	}
	all := map[string]Hook{
		"b":        mk("b", 5, true, "x", "queuejob"),
		"a":        mk("a", 5, true, "x", "queuejob"),
		"first":    mk("first", 1, true, "x", "queuejob", "runjob"),
		"disabled": mk("disabled", 1, false, "x", "queuejob"),
		"noscript": mk("noscript", 1, true, "", "queuejob"),
		"other":    mk("other", 1, true, "x", "runjob"),
	}
	var got []string
	for _, h := range OrderedHooks(all, "queuejob") {
		got = append(got, h.Name)
	}
	if want := []string{"first", "a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("queuejob hooks = %v, want %v", got, want)
	}
}
