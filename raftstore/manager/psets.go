package manager

import (
	"slices"

	"github.com/strata-hpc/strata/model"
)

// Placement sets (docs/scheduling.md): node_group_key on the server and on
// queues names the vnode resources whose values partition the vnodes.

// setGroupKey applies a node_group_key value: a list of defined string or
// string_array resources (PBS groups by their values).
func setGroupKey(dst *[]string, a Attr, defs model.ResourceDefs) error {
	if a.Op != "" {
		for _, name := range splitList(a.Value) {
			d, ok := defs[name]
			if !ok {
				return model.Errorf(model.PBSEUnknownResource, " %s", name)
			}
			if d.Type != model.TypeString && d.Type != model.TypeStringArray {
				return badValue(a)
			}
		}
	}
	return setList(dst, a, nil)
}

// groupKeyUses reports whether a node_group_key names the resource, which
// may then not be deleted.
func groupKeyUses(c *model.ServerConfig, name string) bool {
	if slices.Contains(c.NodeGroupKey, name) {
		return true
	}
	for _, q := range c.Queues {
		if slices.Contains(q.NodeGroupKey, name) {
			return true
		}
	}
	return false
}

// psetsChanged reports whether a request changed how vnodes are grouped:
// the resource epoch then moves, so jobs judged "Can Never Run" against
// the old sets are looked at again.
func psetsChanged(old, cur *model.ServerConfig) bool {
	if old.NodeGroupEnable != cur.NodeGroupEnable || !slices.Equal(old.NodeGroupKey, cur.NodeGroupKey) ||
		old.Sched.DoNotSpanPsets != cur.Sched.DoNotSpanPsets || old.Sched.OnlyExplicitPsets != cur.Sched.OnlyExplicitPsets {
		return true
	}
	for name, q := range cur.Queues {
		if !slices.Equal(old.Queues[name].NodeGroupKey, q.NodeGroupKey) {
			return true
		}
	}
	return false
}
