// Package manager applies manager requests (what qmgr sends: create,
// delete, set, unset, import) to the replicated configuration, and
// describes configuration objects for list, print and export.
//
// Apply is deterministic: the FSM runs it on every server with the same
// input and gets the same result. It never mutates its input; it returns
// the new configuration and the vnodes to store.
package manager

import "github.com/strata-hpc/strata/model"

// Verbs.
const (
	Create = "create"
	Delete = "delete"
	Set    = "set"
	Unset  = "unset"
	Import = "import"
)

// Object types.
const (
	Server   = "server"
	Queue    = "queue"
	Node     = "node"
	Resource = "resource"
	Sched    = "sched"
	Hook     = "hook"
)

// Attr is one attribute operation: name[.resource] op value.
type Attr struct {
	Name     string `json:"name"`
	Resource string `json:"resource,omitempty"`
	Op       string `json:"op,omitempty"` // "=", "+=", "-=" (empty for unset)
	Value    string `json:"value,omitempty"`
}

// Key is the attribute as qmgr writes it ("resources_max.ncpus").
func (a Attr) Key() string {
	if a.Resource != "" {
		return a.Name + "." + a.Resource
	}
	return a.Name
}

// Request is one manager operation on one object.
type Request struct {
	Verb   string `json:"verb"`
	Object string `json:"object"`
	Name   string `json:"name,omitempty"`
	Attrs  []Attr `json:"attrs,omitempty"`
	// Import carries the hook file: content type, and the content already
	// decoded by the client (base64 is undone there).
	ContentType string `json:"content_type,omitempty"`
	Content     string `json:"content,omitempty"`
	// ServerHost is the host the leader runs on (provisioning attributes
	// may not be set on its vnode); the leader fills it in.
	ServerHost string `json:"server_host,omitempty"`
}

// Result is what Apply produced.
type Result struct {
	Config model.ServerConfig
	// Vnodes are the vnodes to store (created or changed).
	Vnodes []*model.Vnode
	// DeleteVnodes are the names of vnodes to remove.
	DeleteVnodes []string
	// ResourcesChanged means vnode capacities must be derived again.
	ResourcesChanged bool
}

// VnodeSource gives Apply read access to the stored vnodes.
type VnodeSource interface {
	Vnode(name string) *model.Vnode
	Vnodes() []*model.Vnode
	// Busy reports whether jobs still use a queue (deleting it is refused).
	QueueJobs(queue string) int
}
