package model

// Hook is a site hook as the replicated configuration stores it. The
// attribute rules (which events exist, what may be combined, defaults) live
// in package hooks; this is only the data every server and agent agrees on.
type Hook struct {
	Name    string   `json:"name"`
	Events  []string `json:"event,omitempty"`
	Enabled bool     `json:"enabled"`
	// Order sorts hooks of the same event (1..1000, lowest first).
	Order int `json:"order"`
	// Alarm is the timeout in seconds; for a provision hook it is the
	// whole-provisioning timeout.
	Alarm      int    `json:"alarm"`
	User       string `json:"user"` // pbsadmin (the server's user) or pbsuser (the job owner)
	FailAction string `json:"fail_action"`
	Freq       int    `json:"freq"`
	Debug      bool   `json:"debug"`
	// ContentType is application/x-python (run under python3) or
	// application/x-executable (run by its own #! line).
	ContentType string `json:"content_type,omitempty"`
	Script      string `json:"script,omitempty"`
	// Config is the optional hook configuration file (application/x-config).
	Config string `json:"config,omitempty"`
	// ProvisionMode is where a provision hook runs: "agent" (default, the
	// node's agent), "server" (the leader) or "ssh" (the leader, on the
	// node's host over SSH). See docs/provisioning.md.
	ProvisionMode string `json:"provision_mode,omitempty"`
}

// HasEvent reports whether the hook is triggered by event.
func (h *Hook) HasEvent(event string) bool {
	for _, e := range h.Events {
		if e == event {
			return true
		}
	}
	return false
}
