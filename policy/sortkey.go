// Package policy holds the site-configurable ordering rules the scheduler
// applies: node sort keys, job ordering and (later) the provisioning policy.
package policy

// Which part of a vnode resource a node sort key reads.
const (
	KeyTotal    = "total"    // resources_available
	KeyAssigned = "assigned" // resources_assigned
	KeyUnused   = "unused"   // available - assigned
)

// NodeSortKey is one node_sort_key line: "<resource> HIGH|LOW [total|assigned|unused]".
// Resource "sort_priority" reads the vnode's Priority attribute.
type NodeSortKey struct {
	Resource string
	High     bool
	Kind     string
}
