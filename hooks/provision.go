package hooks

import "strings"

// Provision outcome kinds (same words as the raftstore commands).
const (
	ProvExited     = "exit"
	ProvTimedOut   = "timeout"
	ProvNotStarted = "nostart"
	ProvAbandoned  = "" // interrupted (this process is stopping): report nothing
)

// ProvisionOutcome reads a provision hook's run: its exit status is the
// answer (0: OS provisioning, reboot follows; 1: application provisioning
// done; other: failure). Output is not a JSON reply for this event, so a
// "malformed output" verdict keeps the exit status.
func ProvisionOutcome(o Outcome) (kind string, exit int) {
	if !o.Failed {
		return ProvExited, o.Exit
	}
	switch {
	case strings.Contains(o.Message, "malformed output"):
		return ProvExited, o.Exit
	case strings.Contains(o.Message, "alarm call"):
		return ProvTimedOut, -1
	case strings.Contains(o.Message, "interrupted"):
		return ProvAbandoned, -1
	}
	return ProvNotStarted, -1
}
