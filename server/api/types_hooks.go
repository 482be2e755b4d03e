package api

import "github.com/strata-hpc/strata/model"

// HooksResponse answers GET /v1/agent/hooks: the hooks that have at least
// one agent event (execjob_*, exechost_*), with their scripts, and the
// configuration's hook_version they belong to. Both come from the same
// state snapshot, so an agent that stores them knows exactly which version
// it holds.
type HooksResponse struct {
	Version uint64       `json:"hook_version"`
	Hooks   []model.Hook `json:"hooks"`
}

// Hook actions an agent asks the server for when a hook's fail_action
// applies (POST /v1/agent/hookaction).
const (
	// HookOffline marks every vnode of the host offline with the comment
	// "offlined by hook '<name>' due to hook error" (fail_action
	// offline_vnodes).
	HookOffline = "offline"
	// HookClear brings back the host's vnodes a hook offlined
	// (clear_vnodes_upon_recovery after a successful exechost_startup).
	HookClear = "clear"
	// HookRestartCycle asks the scheduler to start a new cycle
	// (scheduler_restart_cycle after a failed execjob_begin).
	HookRestartCycle = "restart_cycle"
)

// HookActionRequest is one fail_action request from an agent.
type HookActionRequest struct {
	Host   string `json:"host"`
	Hook   string `json:"hook"`
	Event  string `json:"event"`
	Action string `json:"action"`
}
