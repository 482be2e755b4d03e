package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// Preemption classes, the words of preempt_prio. A job belongs to any
// number of them (express_queue and queue_softlimits at once, say);
// normal_jobs is the class of a job in none.
const (
	ClassExpress    = "express_queue"
	ClassNormal     = "normal_jobs"
	ClassStarving   = "starving_jobs"
	ClassFairshare  = "fairshare"
	ClassQueueSoft  = "queue_softlimits"
	ClassServerSoft = "server_softlimits"
)

// PreemptClass is a set of preemption classes as bits.
type PreemptClass uint8

// The class bits; normal_jobs is the empty set.
const (
	BitExpress PreemptClass = 1 << iota
	BitStarving
	BitFairshare
	BitQueueSoft
	BitServerSoft
)

var classBits = map[string]PreemptClass{
	ClassExpress: BitExpress, ClassNormal: 0, ClassStarving: BitStarving,
	ClassFairshare: BitFairshare, ClassQueueSoft: BitQueueSoft, ClassServerSoft: BitServerSoft,
}

// PreemptPrio is a parsed preempt_prio: its entries, highest priority
// first, each a set of classes joined by "+" in the attribute.
type PreemptPrio struct {
	Levels []PreemptClass
}

// ParsePreemptPrio parses "express_queue, normal_jobs, queue_softlimits"
// (entries separated by commas, classes within one entry by "+").
func ParsePreemptPrio(s string) (PreemptPrio, error) {
	var p PreemptPrio
	seen := map[PreemptClass]bool{}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return PreemptPrio{}, fmt.Errorf("preempt_prio: empty entry in %q", s)
		}
		var set PreemptClass
		for _, name := range strings.Split(entry, "+") {
			b, ok := classBits[strings.TrimSpace(name)]
			if !ok {
				return PreemptPrio{}, fmt.Errorf("preempt_prio: unknown class %q", strings.TrimSpace(name))
			}
			set |= b
		}
		if seen[set] {
			return PreemptPrio{}, fmt.Errorf("preempt_prio: %q listed twice", entry)
		}
		seen[set] = true
		p.Levels = append(p.Levels, set)
	}
	if len(p.Levels) == 0 {
		return PreemptPrio{}, fmt.Errorf("preempt_prio: empty")
	}
	return p, nil
}

// Level is the preemption priority of a job in classes set: higher
// preempts lower. An entry naming exactly the job's classes wins; else the
// first entry whose classes the job all has (normal_jobs, the empty set,
// only when listed); a job matching no entry is at normal_jobs' level, or
// the lowest when normal_jobs is not listed. Levels are spaced by 1000 so
// that express queues can add their queue priority within their level,
// as OpenPBS does.
func (p PreemptPrio) Level(set PreemptClass) int {
	n := len(p.Levels)
	value := func(i int) int { return (n - i) * 1000 }
	for i, l := range p.Levels {
		if l == set {
			return value(i)
		}
	}
	for i, l := range p.Levels {
		if l != 0 && l&set == l {
			return value(i)
		}
	}
	for i, l := range p.Levels {
		if l == 0 {
			return value(i)
		}
	}
	return 0
}

// PreemptStep is one part of preempt_order: the methods to try, in order,
// for a job with at most MaxRemainPct percent of its walltime left (the
// first step has 100).
type PreemptStep struct {
	Methods      string
	MaxRemainPct int
}

// ParsePreemptOrder parses "SCR" or "SCR 80 SC 50 S": method letters
// (S, C, R, D), optionally followed by a percentage of walltime remaining
// below which the next group applies.
func ParsePreemptOrder(s string) ([]PreemptStep, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return nil, fmt.Errorf("preempt_order: empty")
	}
	var out []PreemptStep
	limit := 100
	for i := 0; i < len(f); i++ {
		m := strings.ToUpper(f[i])
		for _, r := range m {
			if !strings.ContainsRune("SCRD", r) {
				return nil, fmt.Errorf("preempt_order: %q is not a list of S, C, R and D", f[i])
			}
		}
		if strings.Count(m, "S") > 1 || strings.Count(m, "C") > 1 || strings.Count(m, "R") > 1 || strings.Count(m, "D") > 1 {
			return nil, fmt.Errorf("preempt_order: %q repeats a method", f[i])
		}
		out = append(out, PreemptStep{Methods: m, MaxRemainPct: limit})
		if i+1 < len(f) {
			i++
			pct, err := strconv.Atoi(f[i])
			if err != nil || pct <= 0 || pct >= limit {
				return nil, fmt.Errorf("preempt_order: %q must be a percentage below %d", f[i], limit)
			}
			limit = pct
			if i+1 == len(f) {
				return nil, fmt.Errorf("preempt_order: percentage %d has no methods after it", pct)
			}
		}
	}
	return out, nil
}

// PreemptMethods returns the methods to try for a job with remainPct
// percent of its walltime left (100 when it has no walltime).
func PreemptMethods(steps []PreemptStep, remainPct float64) string {
	m := ""
	for _, s := range steps {
		if remainPct <= float64(s.MaxRemainPct) {
			m = s.Methods
		}
	}
	if m == "" && len(steps) > 0 {
		m = steps[0].Methods
	}
	return m
}

// ValidPreemptSort checks preempt_sort: OpenPBS knows one value.
func ValidPreemptSort(s string) error {
	if strings.TrimSpace(s) != "min_time_since_start" {
		return fmt.Errorf("preempt_sort: only min_time_since_start is supported")
	}
	return nil
}
