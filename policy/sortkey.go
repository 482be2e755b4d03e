package policy

import (
	"fmt"
	"strings"
)

// Which part of a vnode resource a node sort key reads.
const (
	KeyTotal    = "total"    // resources_available
	KeyAssigned = "assigned" // resources_assigned
	KeyUnused   = "unused"   // available - assigned
)

// Special node sort key names that read vnode attributes, not resources.
const (
	SortPriority = "sort_priority"  // the vnode's Priority attribute
	LastUsedTime = "last_used_time" // the vnode's last_used_time attribute
)

// NodeSortKey is one node_sort_key line: "<resource> HIGH|LOW [total|assigned|unused]".
// Resource "sort_priority" reads the vnode's Priority attribute.
type NodeSortKey struct {
	Resource string
	High     bool
	Kind     string
}

// String prints the key the way it is configured ("ncpus HIGH unused"); the
// kind is left out when it is the default.
func (k NodeSortKey) String() string {
	dir := "LOW"
	if k.High {
		dir = "HIGH"
	}
	s := k.Resource + " " + dir
	if k.Kind != "" && k.Kind != KeyTotal {
		s += " " + k.Kind
	}
	return s
}

// Dynamic reports whether the key's value changes as jobs are placed, so
// vnodes ordered by it must be re-sorted after every placement. Keys on the
// vnode attributes (sort_priority, last_used_time) never are.
func (k NodeSortKey) Dynamic() bool {
	if k.Resource == SortPriority || k.Resource == LastUsedTime {
		return false
	}
	return k.Kind == KeyAssigned || k.Kind == KeyUnused
}

// AnyDynamic reports whether any key is Dynamic; only then does the
// scheduler pay for re-sorting vnodes during a cycle.
func AnyDynamic(keys []NodeSortKey) bool {
	for _, k := range keys {
		if k.Dynamic() {
			return true
		}
	}
	return false
}

// DefaultNodeSortKeys is what PBS ships in sched_config: "sort_priority HIGH".
func DefaultNodeSortKeys() []NodeSortKey {
	return []NodeSortKey{{Resource: SortPriority, High: true, Kind: KeyTotal}}
}

// ParseNodeSortKey parses "<res> HIGH|LOW [total|assigned|unused]". As in
// OpenPBS the direction is case-insensitive but the third token must be
// lowercase; surrounding double quotes (as written in sched_config) are
// accepted. The error names the offending token.
func ParseNodeSortKey(s string) (NodeSortKey, error) {
	text := strings.TrimSpace(s)
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		text = text[1 : len(text)-1]
	}
	fields := strings.Fields(text)
	if len(fields) < 2 || len(fields) > 3 {
		return NodeSortKey{}, fmt.Errorf("Invalid node_sort_key %q: want \"<resource> HIGH|LOW [total|assigned|unused]\"", s)
	}
	k := NodeSortKey{Resource: fields[0], Kind: KeyTotal}
	switch strings.ToLower(fields[1]) {
	case "high":
		k.High = true
	case "low":
	default:
		return NodeSortKey{}, fmt.Errorf("Invalid node_sort_key %q: bad sort order %q (want HIGH or LOW)", s, fields[1])
	}
	if len(fields) == 3 {
		switch fields[2] {
		case KeyTotal, KeyAssigned, KeyUnused:
			k.Kind = fields[2]
		default:
			return NodeSortKey{}, fmt.Errorf("Invalid node_sort_key %q: bad resource part %q (want total, assigned or unused)", s, fields[2])
		}
	}
	return k, nil
}

// ParseNodeSortKeys parses several node_sort_key lines: the first is the
// primary key, the others break ties in order.
func ParseNodeSortKeys(lines []string) ([]NodeSortKey, error) {
	out := make([]NodeSortKey, 0, len(lines))
	for i, line := range lines {
		k, err := ParseNodeSortKey(line)
		if err != nil {
			return nil, fmt.Errorf("node_sort_key %d: %w", i+1, err)
		}
		out = append(out, k)
	}
	return out, nil
}
