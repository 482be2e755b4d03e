package model

// qmgr's wire vocabulary: the requests qmgr sends and the objects it
// describes. They live here, not with the rules that apply them
// (raftstore/manager), so that the API, the commands and the agent do not
// depend on the FSM's configuration logic.

// ManagerAttr is one attribute operation: name[.resource] op value.
type ManagerAttr struct {
	Name     string `json:"name"`
	Resource string `json:"resource,omitempty"`
	Op       string `json:"op,omitempty"` // "=", "+=", "-=" (empty for unset)
	Value    string `json:"value,omitempty"`
}

// Key is the attribute as qmgr writes it ("resources_max.ncpus").
func (a ManagerAttr) Key() string {
	if a.Resource != "" {
		return a.Name + "." + a.Resource
	}
	return a.Name
}

// ManagerRequest is one manager operation (create, delete, set, unset,
// import) on one object.
type ManagerRequest struct {
	Verb   string        `json:"verb"`
	Object string        `json:"object"`
	Name   string        `json:"name,omitempty"`
	Attrs  []ManagerAttr `json:"attrs,omitempty"`
	// Import carries the hook file: content type, and the content already
	// decoded by the client (base64 is undone there).
	ContentType string `json:"content_type,omitempty"`
	Content     string `json:"content,omitempty"`
	// ServerHost is the host the leader runs on (provisioning attributes
	// may not be set on its vnode); the leader fills it in.
	ServerHost string `json:"server_host,omitempty"`
}

// ConfigItem is one attribute of a described object. A list value has
// several Values (print writes one "=" line then "+=" lines). ReadOnly
// items are shown by list but left out of print.
type ConfigItem struct {
	Name     string   `json:"name"`
	Values   []string `json:"values"`
	ReadOnly bool     `json:"read_only,omitempty"`
	// PrintValues, when set, is what print replays instead of Values
	// (a node's state lists "down,offline" but only offline is settable).
	PrintValues []string `json:"print_values,omitempty"`
}

// Replayed is what print writes for the item, one "=" then "+=" per
// value; nil when print leaves the item out.
func (it ConfigItem) Replayed() []string {
	switch {
	case it.PrintValues != nil:
		return it.PrintValues
	case it.ReadOnly:
		return nil
	}
	return it.Values
}

// ConfigObject is a described configuration object (qmgr list, print,
// export).
type ConfigObject struct {
	Type  string       `json:"type"` // Server, Queue, Node, Resource, Sched, Hook
	Name  string       `json:"name"`
	Items []ConfigItem `json:"items"`
	// Hook script and config file (export, print hook); filled only for
	// managers.
	ContentType string `json:"content_type,omitempty"`
	Script      string `json:"script,omitempty"`
	Config      string `json:"config,omitempty"`
}

// PBSEHookError is PBSE_HOOKERROR, a hook rule violation; qmgr prefixes
// its text with "hook error returned from server".
const PBSEHookError = 15166
