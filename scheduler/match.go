package scheduler

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// matcher is one non-consumable constraint of a chunk ("host=n1",
// "arch=linux", "bigmem=True").
type matcher struct {
	name  string
	value string
	kind  matchKind
	num   float64 // numeric value for matchAtLeast
}

type matchKind int

const (
	matchString  matchKind = iota // equality with resources_available
	matchHost                     // the vnode's host (full or short name)
	matchVnode                    // the vnode's name
	matchBool                     // a missing boolean is False
	matchList                     // string_array: the value is one of the vnode's
	matchAOE                      // aoe: one of the vnode's AOEs
	matchAtLeast                  // non-consumable number: vnode value >= request
)

// rankHints are chunk resources that describe how the job uses its cpus, not
// properties a vnode must have.
var rankHints = map[string]bool{"mpiprocs": true, "ompthreads": true}

func compileMatchers(ch model.Chunk, defs model.ResourceDefs) []matcher {
	var out []matcher
	for _, name := range model.SortedKeys(ch.Match) {
		if rankHints[name] {
			continue
		}
		m := matcher{name: name, value: ch.Match[name]}
		def := defs[name]
		switch {
		case name == "host":
			m.kind = matchHost
		case name == "vnode":
			m.kind = matchVnode
		case name == "aoe":
			m.kind = matchAOE
		case def.Type == model.TypeBoolean:
			m.kind = matchBool
		case def.Type == model.TypeStringArray:
			m.kind = matchList
		case def.Numeric():
			amt, err := def.Amount(m.value)
			if err != nil {
				continue
			}
			m.kind, m.num = matchAtLeast, amt
		default:
			m.kind = matchString
		}
		out = append(out, m)
	}
	return out
}

func matchAll(ms []matcher, v *model.Vnode) bool {
	for i := range ms {
		if !ms[i].match(v) {
			return false
		}
	}
	return true
}

func (m *matcher) match(v *model.Vnode) bool {
	switch m.kind {
	case matchHost:
		return v.Host == m.value || shortHost(v.Host) == m.value
	case matchVnode:
		return v.Name == m.value
	case matchBool:
		b, _ := model.ParseBool(v.Available[m.name]) // missing or odd: False
		return model.FormatBool(b) == m.value
	case matchList:
		return inList(v.Available[m.name], m.value)
	case matchAOE:
		return aoeMatches(v, m.value)
	case matchAtLeast:
		if c, ok := v.Capacity[m.name]; ok {
			return c >= m.num
		}
		f, err := strconv.ParseFloat(v.Available[m.name], 64)
		return err == nil && f >= m.num
	}
	return v.Available[m.name] == m.value
}

// aoeMatches is the provisioning seam: today a vnode matches an aoe request
// when the AOE is in its resources_available.aoe list. The provisioning
// policy (current_aoe, provision_enable, avoid_provision) refines this.
func aoeMatches(v *model.Vnode, aoe string) bool {
	return inList(v.Available["aoe"], aoe)
}

// inList reports whether value is one of the comma-separated items of list.
func inList(list, value string) bool {
	for list != "" {
		item, rest, _ := strings.Cut(list, ",")
		if strings.TrimSpace(item) == value {
			return true
		}
		list = rest
	}
	return false
}
