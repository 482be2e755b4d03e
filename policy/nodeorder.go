package policy

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/strata-hpc/strata/model"
)

// AssignedFunc returns how much of resource res is assigned on v, including
// anything the caller has placed on it since the snapshot was taken. The
// stored Vnode objects are shared and immutable, so the scheduler passes its
// own overlay through this function instead of editing them.
type AssignedFunc func(v *model.Vnode, res string) float64

// StoredAssigned reads Vnode.Assigned alone (no overlay).
func StoredAssigned(v *model.Vnode, res string) float64 { return v.Assigned[res] }

// Total returns the value the key reads for kind "total": the vnode attribute
// for the special keys, else resources_available (0 when the vnode lacks it).
// Consumables come from Capacity; other numeric resources are parsed from
// Available, which is cheap enough because callers cache the result.
func (k NodeSortKey) Total(v *model.Vnode) float64 {
	switch k.Resource {
	case SortPriority:
		return float64(v.Priority)
	case LastUsedTime:
		return float64(v.LastUsed)
	}
	if c, ok := v.Capacity[k.Resource]; ok {
		return c
	}
	if s, ok := v.Available[k.Resource]; ok {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return 0
}

// Value returns the number the key compares, given the key's Total for the
// vnode and the amount of the resource assigned on it.
func (k NodeSortKey) Value(total, assigned float64) float64 {
	if !k.Dynamic() {
		return total
	}
	if k.Kind == KeyAssigned {
		return assigned
	}
	return total - assigned
}

// CompareValues compares two vnodes through their key values (a[i] is the
// value of keys[i]): HIGH keys order descending, LOW ascending, later keys
// break ties. It returns 0 on a full tie; callers then fall back to server
// order.
func CompareValues(keys []NodeSortKey, a, b []float64) int {
	for i, k := range keys {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			if k.High {
				return -c
			}
			return c
		}
	}
	return 0
}

// Values fills dst (len(keys)) with v's key values.
func Values(dst []float64, keys []NodeSortKey, v *model.Vnode, assigned AssignedFunc) {
	for i, k := range keys {
		var a float64
		if k.Dynamic() {
			a = assigned(v, k.Resource)
		}
		dst[i] = k.Value(k.Total(v), a)
	}
}

// SortVnodes orders vnodes by keys, stably: vnodes that tie on every key keep
// their relative order, so passing them in server order gives the PBS
// tie-break. Key values are computed once per vnode, not per comparison.
// A nil assigned means StoredAssigned.
func SortVnodes(vnodes []*model.Vnode, keys []NodeSortKey, assigned AssignedFunc) {
	if len(keys) == 0 || len(vnodes) < 2 {
		return
	}
	if assigned == nil {
		assigned = StoredAssigned
	}
	type entry struct {
		v    *model.Vnode
		vals []float64
	}
	vals := make([]float64, len(vnodes)*len(keys))
	entries := make([]entry, len(vnodes))
	for i, v := range vnodes {
		e := entry{v: v, vals: vals[i*len(keys) : (i+1)*len(keys)]}
		Values(e.vals, keys, v, assigned)
		entries[i] = e
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return CompareValues(keys, a.vals, b.vals) })
	for i, e := range entries {
		vnodes[i] = e.v
	}
}
