package model

import (
	"fmt"
	"sort"
	"strings"
)

// Events Strata runs, by where they run.
var (
	HookServerEvents = []string{"queuejob", "modifyjob", "movejob", "runjob", "resvsub", "modifyresv", "periodic", "provision"}
	HookAgentEvents  = []string{"execjob_begin", "execjob_prologue", "execjob_epilogue", "execjob_end", "exechost_startup", "exechost_periodic",
		"execjob_checkpoint"} // Strata's: preemption by checkpoint (mom/checkpoint.go)
)

// Content types a hook script may be imported as.
const (
	HookContentPython     = "application/x-python"
	HookContentExecutable = "application/x-executable"
	HookContentConfig     = "application/x-config"
)

// Fail actions (PBS names).
const (
	HookFailNone           = "none"
	HookFailOfflineVnodes  = "offline_vnodes"
	HookFailClearVnodes    = "clear_vnodes_upon_recovery"
	HookFailSchedulerCycle = "scheduler_restart_cycle"
)

// DefaultHook are PBS's: enabled, no event, user pbsadmin, alarm 30, order 1,
// debug false, fail_action none, freq 120.
func DefaultHook(name string) Hook {
	return Hook{Name: name, Enabled: true, User: "pbsadmin", Alarm: 30, Order: 1, FailAction: HookFailNone, Freq: 120}
}

// KnownHookEvent reports whether Strata can run event.
func KnownHookEvent(e string) bool {
	return hookContains(HookServerEvents, e) || hookContains(HookAgentEvents, e)
}

// IsAgentHookEvent reports whether event runs on the agents.
func IsAgentHookEvent(e string) bool { return hookContains(HookAgentEvents, e) }

// HookRunsOnAgents reports whether any of the hook's events runs on agents.
func HookRunsOnAgents(h *Hook) bool {
	for _, e := range h.Events {
		if IsAgentHookEvent(e) {
			return true
		}
	}
	return false
}

func hookContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Error texts PBS prints for hook rule violations.
const (
	msgProvExclusive = "Event provision is exclusive with other events, and only one provision hook allowed"
)

// CheckHook validates a hook against the others (all hooks, by name, without
// h itself or with its old version). The error text is what qmgr shows.
func CheckHook(h *Hook, all map[string]Hook) error {
	for _, e := range h.Events {
		if !KnownHookEvent(e) {
			return fmt.Errorf("invalid argument (%s) to event", e)
		}
	}
	if h.HasEvent("provision") {
		if len(h.Events) > 1 {
			return fmt.Errorf(msgProvExclusive)
		}
		for _, name := range SortedKeys(all) {
			o := all[name]
			if name != h.Name && o.HasEvent("provision") {
				return fmt.Errorf("Another hook '%s' already has event 'provision', only one 'provision' hook allowed", name)
			}
		}
	}
	if h.Order < 1 || h.Order > 1000 {
		return fmt.Errorf("order value out of range: %d (must be 1..1000)", h.Order)
	}
	if h.Alarm <= 0 {
		return fmt.Errorf("alarm value must be > 0")
	}
	if h.Freq <= 0 {
		return fmt.Errorf("freq value must be > 0")
	}
	switch h.User {
	case "pbsadmin", "pbsuser":
	default:
		return fmt.Errorf("user value must be pbsadmin or pbsuser")
	}
	for _, fa := range strings.Split(h.FailAction, ",") {
		switch fa {
		case HookFailNone, HookFailOfflineVnodes, HookFailClearVnodes, HookFailSchedulerCycle:
		default:
			return fmt.Errorf("invalid fail_action value: %s", fa)
		}
	}
	if strings.Contains(h.FailAction, HookFailSchedulerCycle) && (len(h.Events) != 1 || h.Events[0] != "execjob_begin") {
		return fmt.Errorf("Can't set hook fail_action value to 'scheduler_restart_cycle': hook event must contain only 'execjob_begin'")
	}
	if strings.Contains(h.FailAction, HookFailClearVnodes) && !h.HasEvent("exechost_startup") {
		return fmt.Errorf("Can't set hook fail_action value to 'clear_vnodes_upon_recovery': hook event must contain 'exechost_startup'")
	}
	return nil
}

// OrderedHooks returns the enabled hooks with a script for event, by order then
// name (PBS runs them in ascending order).
func OrderedHooks(all map[string]Hook, event string) []Hook {
	var out []Hook
	for _, h := range all {
		if h.Enabled && h.Script != "" && h.HasEvent(event) {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Order != out[j].Order {
			return out[i].Order < out[j].Order
		}
		return out[i].Name < out[j].Name
	})
	return out
}
