package model

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ResourceType is the value type of a resource, as in qmgr's
// "create resource NAME type=...".
type ResourceType string

const (
	TypeLong        ResourceType = "long"
	TypeFloat       ResourceType = "float"
	TypeSize        ResourceType = "size"
	TypeString      ResourceType = "string"
	TypeStringArray ResourceType = "string_array"
	TypeBoolean     ResourceType = "boolean"
	// TypeDuration is PBS's "long in seconds shown as HH:MM:SS" (walltime, cput).
	TypeDuration ResourceType = "duration"
)

// ResourceDef describes one resource. Flags follow qmgr: "h" host-level (may
// appear in select chunks and on vnodes), "n" or "f" consumable on the vnode,
// "q" consumable at server/queue level.
type ResourceDef struct {
	Name  string       `json:"name" toml:"name"`
	Type  ResourceType `json:"type" toml:"type"`
	Flags string       `json:"flag,omitempty" toml:"flag"`
}

// HostLevel reports whether the resource belongs in select chunks.
func (d ResourceDef) HostLevel() bool { return strings.Contains(d.Flags, "h") }

// Consumable reports whether assigning the resource to a job uses it up on
// the vnode (ncpus, mem, ngpus, ...).
func (d ResourceDef) Consumable() bool {
	return d.HostLevel() && strings.ContainsAny(d.Flags, "nf") && d.Numeric()
}

// Numeric reports whether values of the resource are numbers.
func (d ResourceDef) Numeric() bool {
	switch d.Type {
	case TypeLong, TypeFloat, TypeSize, TypeDuration:
		return true
	}
	return false
}

// ResourceDefs is the set of known resources, keyed by name. It is passed
// explicitly to everything that parses requests; the server keeps it in its
// replicated state so every server agrees on it.
type ResourceDefs map[string]ResourceDef

// BuiltinResources returns the resources every PBS complex knows.
func BuiltinResources() ResourceDefs {
	defs := ResourceDefs{}
	for _, d := range []ResourceDef{
		{"ncpus", TypeLong, "hn"},
		{"mem", TypeSize, "hn"},
		{"vmem", TypeSize, "hn"},
		{"ngpus", TypeLong, "hn"},
		{"nmics", TypeLong, "hn"},
		{"mpiprocs", TypeLong, "h"},
		{"ompthreads", TypeLong, "h"},
		{"host", TypeString, "h"},
		{"vnode", TypeString, "h"},
		{"arch", TypeString, "h"},
		{"aoe", TypeStringArray, "h"},
		{"walltime", TypeDuration, ""},
		{"soft_walltime", TypeDuration, ""},
		{"cput", TypeDuration, ""},
		{"file", TypeSize, ""},
		{"software", TypeString, ""},
		{"nodect", TypeLong, ""},
		{"select", TypeString, ""},
		{"place", TypeString, ""},
		{"nodes", TypeString, ""},
	} {
		defs[d.Name] = d
	}
	return defs
}

// With returns a copy of defs with extra added (custom resources).
func (defs ResourceDefs) With(extra ...ResourceDef) ResourceDefs {
	out := make(ResourceDefs, len(defs)+len(extra))
	for k, v := range defs {
		out[k] = v
	}
	for _, d := range extra {
		out[d.Name] = d
	}
	return out
}

// Validate checks a custom resource definition.
func (d ResourceDef) Validate() error {
	if d.Name == "" || strings.ContainsAny(d.Name, " =:+,.\t") {
		return fmt.Errorf("illegal resource name %q", d.Name)
	}
	switch d.Type {
	case TypeLong, TypeFloat, TypeSize, TypeString, TypeStringArray, TypeBoolean, TypeDuration:
	default:
		return fmt.Errorf("resource %s: unknown type %q", d.Name, d.Type)
	}
	for _, f := range d.Flags {
		if !strings.ContainsRune("hnfqim", f) {
			return fmt.Errorf("resource %s: unknown flag %q", d.Name, string(f))
		}
	}
	return nil
}

// Normalize checks value against the resource's type and returns it in the
// canonical form PBS stores and prints: sizes as "16gb", durations as
// "HH:MM:SS", booleans as "True"/"False".
func (d ResourceDef) Normalize(value string) (string, error) {
	switch d.Type {
	case TypeLong:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return "", fmt.Errorf("%s: %q is not an integer", d.Name, value)
		}
		return strconv.FormatInt(n, 10), nil
	case TypeFloat:
		f, err := strconv.ParseFloat(value, 64)
		// NaN and infinities parse as floats but are no amount: a NaN
		// consumable compares false with everything in the scheduler.
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("%s: %q is not a number", d.Name, value)
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case TypeSize:
		b, err := ParseSize(value)
		if err != nil {
			return "", err
		}
		return FormatSize(b), nil
	case TypeDuration:
		s, err := ParseDuration(value)
		if err != nil {
			return "", err
		}
		return FormatDuration(s), nil
	case TypeBoolean:
		b, err := ParseBool(value)
		if err != nil {
			return "", err
		}
		return FormatBool(b), nil
	case TypeString, TypeStringArray:
		if value == "" {
			return "", fmt.Errorf("%s: empty value", d.Name)
		}
		return value, nil
	}
	return "", fmt.Errorf("%s: unknown type %q", d.Name, d.Type)
}

// Amount converts a canonical numeric value to the unit the scheduler counts
// in: bytes for sizes, seconds for durations, the number itself otherwise.
func (d ResourceDef) Amount(value string) (float64, error) {
	switch d.Type {
	case TypeSize:
		b, err := ParseSize(value)
		return float64(b), err
	case TypeDuration:
		s, err := ParseDuration(value)
		return float64(s), err
	case TypeLong, TypeFloat:
		return strconv.ParseFloat(value, 64)
	case TypeBoolean:
		b, err := ParseBool(value)
		if b {
			return 1, err
		}
		return 0, err
	}
	return 0, fmt.Errorf("%s is not numeric", d.Name)
}

// FormatAmount prints an amount counted in scheduler units in the resource's
// display form (sizes in kb, as exec_vnode and resources_assigned show them).
func (d ResourceDef) FormatAmount(v float64) string {
	switch d.Type {
	case TypeSize:
		return FormatSizeKB(int64(v))
	case TypeDuration:
		return FormatDuration(int64(v))
	case TypeFloat:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}

// SortedKeys returns m's keys in order; output and hashing use it so that
// map iteration order never leaks into what users or the FSM see.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
