package raftstore

import "github.com/strata-hpc/strata/model"

// Provisioning commands (docs/provisioning.md). Operations are replicated
// records (table provops, one per host); the leader's dispatcher only
// proposes these commands, so a new leader resumes from the state alone.

// ProvisionStart starts a waiting operation: the dispatcher found a free
// slot of max_concurrent_provision. The FSM re-checks the slot count.
type ProvisionStart struct {
	Host string `json:"host"`
	Mode string `json:"mode"`
	// Alarm is the provision hook's alarm: the whole-operation timeout.
	Alarm int64 `json:"alarm"`
	Now   int64 `json:"now"`
}

// Provision result kinds.
const (
	// ProvHookExited: the hook exited with Exit (0: OS provisioning,
	// reboot expected; 1: application provisioning, done; else failure).
	ProvHookExited = "exit"
	// ProvTimedOut: the alarm expired before the operation completed.
	ProvTimedOut = "timeout"
	// ProvNotStarted: the hook could not be started (no hook, no agent,
	// no SSH connection...): the job is held, the vnodes are not offlined.
	ProvNotStarted = "nostart"
)

// ProvisionResult reports how an operation's hook ended. Reports for
// another attempt, or for an operation that is gone, are ignored, so
// agents may repeat them until acknowledged.
type ProvisionResult struct {
	Host    string `json:"host"`
	Attempt int    `json:"attempt"`
	Kind    string `json:"kind"`
	Exit    int    `json:"exit"`
	Message string `json:"message,omitempty"`
	Now     int64  `json:"now"`
}

// ProvisionStartResult is what the FSM answers to ProvisionStart: the
// operation as started (nil when it could not start).
type ProvisionStartResult struct {
	Op *model.ProvOp
}

func (ProvisionStart) Type() MessageType  { return ProvisionStartType }
func (ProvisionResult) Type() MessageType { return ProvisionResultType }
