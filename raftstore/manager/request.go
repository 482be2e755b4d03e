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

// The wire types are model's (model/manage.go); these names keep the
// rules below short.
type (
	Attr    = model.ManagerAttr
	Request = model.ManagerRequest
)

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
