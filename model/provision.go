package model

import "strings"

// PBSEIvalAOEChunk is PBS's PBSE_IVAL_AOECHUNK: chunks of one job (or
// reservation) ask for different AOEs.
const PBSEIvalAOEChunk = 15155

// MsgIvalAOEChunk is its text.
const MsgIvalAOEChunk = "Invalid provisioning request in chunk(s)"

// Provisioning texts users and admins see, as OpenPBS words them.
const (
	MsgProvFailedStart   = "job held, provisioning failed to start"
	MsgVnodeProvFailed   = "Vnode offlined since it failed provisioning"
	MsgVnodeProvMismatch = "Vnode offlined since it failed provisioning: AOE mis-match"
)

// Provisioning operation states. An operation is one host being moved to
// one AOE; it is a replicated record so a new leader carries it on.
const (
	// ProvWaiting: queued (vnodes wait-provisioning) until a slot of
	// max_concurrent_provision is free.
	ProvWaiting = "waiting"
	// ProvRunning: the hook was started (vnodes provisioning).
	ProvRunning = "running"
	// ProvRebooting: the hook exited 0 (OS provisioning); the operation
	// completes when the host's agent registers with a new boot id.
	ProvRebooting = "rebooting"
)

// Provision hook modes (hook attribute provision_mode).
const (
	ProvModeAgent  = "agent"  // the node's agent runs the hook (default)
	ProvModeServer = "server" // the leader runs it (OpenPBS's way)
	ProvModeSSH    = "ssh"    // the leader runs it on the host over SSH
)

// provisioningHides are the state flags a status query hides while a
// vnode is (waiting to be) provisioned.
const provisioningHides = NodeDown | NodeStateUnknown | NodeJobBusy | NodeJobExclusive | NodeResvExclusive

// ProvisionDuration is the estimate used for an AOE until one was learned
// (OpenPBS's PROVISION_DURATION, seconds).
const ProvisionDuration = 600

// ProvOp is one provisioning operation: all vnodes of one host to one AOE
// (Strata provisions a multi-vnode host as one unit). There is at most one
// per host.
type ProvOp struct {
	Host   string   `json:"host"`
	Vnodes []string `json:"vnodes"`
	AOE    string   `json:"aoe"`
	// JobID is the job waiting for this host; empty once the job went
	// away (deleted, requeued): the operation still finishes node-side.
	JobID string `json:"job_id,omitempty"`
	State string `json:"state"`
	// Seq orders waiting operations (FIFO).
	Seq     int64  `json:"seq"`
	Queued  int64  `json:"queued"`
	Started int64  `json:"started,omitempty"`
	Attempt int    `json:"attempt"`
	Mode    string `json:"mode,omitempty"`
	// BootID is the host's boot id when the hook started: OS provisioning
	// completes only on a registration with another one.
	BootID string `json:"boot_id,omitempty"`
	// Rebooted is set when the host registered with a new boot id;
	// ReportedAOE is what its agent detected then ("" = cannot tell).
	Rebooted    bool   `json:"rebooted,omitempty"`
	ReportedAOE string `json:"reported_aoe,omitempty"`
	Detects     bool   `json:"detects,omitempty"`
	// HookExit is the hook's exit status once known.
	HookExit *int `json:"hook_exit,omitempty"`
	// Alarm is the hook's alarm when it started: the whole-operation
	// timeout (hook, reboot, re-registration).
	Alarm int64 `json:"alarm,omitempty"`
}

// Copy returns a deep copy.
func (o *ProvOp) Copy() *ProvOp {
	c := *o
	c.Vnodes = append([]string(nil), o.Vnodes...)
	if o.HookExit != nil {
		e := *o.HookExit
		c.HookExit = &e
	}
	return &c
}

// ProvStat is what the server learned about provisioning one host to one
// AOE; the key is "host/aoe".
type ProvStat struct {
	Key       string `json:"key"`
	Host      string `json:"host"`
	AOE       string `json:"aoe"`
	Successes int64  `json:"successes"`
	Failures  int64  `json:"failures"`
	// MeanSecs is the moving average of successful durations (start to
	// completion), LastSecs the latest; WaitSecs sums queue waits.
	MeanSecs  int64 `json:"mean_secs"`
	LastSecs  int64 `json:"last_secs"`
	WaitSecs  int64 `json:"wait_secs"`
	LastEnded int64 `json:"last_ended,omitempty"`
}

// ProvStatKey names a ProvStat row.
func ProvStatKey(host, aoe string) string { return host + "/" + aoe }

// SelectAOE returns the AOE the chunks of a select ask for (the first chunk
// that names one), or "".
func SelectAOE(sel Select) string {
	for _, ch := range sel {
		if a := ch.Match["aoe"]; a != "" {
			return a
		}
	}
	return ""
}

// CheckAOEChunks enforces one AOE per job: every chunk that names an AOE
// names the same one (chunks without one may be mixed in, as since PBS's
// PP-1006). Values are compared whole, not by prefix (OpenPBS quirk).
func CheckAOEChunks(sel Select) error {
	first := ""
	for _, ch := range sel {
		a := strings.TrimSpace(ch.Match["aoe"])
		if a == "" {
			continue
		}
		if strings.Contains(a, ",") || (first != "" && a != first) {
			return &PBSError{Code: PBSEIvalAOEChunk, Msg: MsgIvalAOEChunk}
		}
		first = a
	}
	return nil
}
