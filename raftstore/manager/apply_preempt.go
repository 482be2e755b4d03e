package manager

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// The preemption attributes of the sched object (docs/scheduling.md,
// "Preemption"). Values are checked here, when set, so that a cycle never
// meets one it cannot parse.

// applyPreemptAttr applies a to the preemption settings; handled is false
// when a is not one of them.
func applyPreemptAttr(s *model.SchedConfig, a Attr) (handled bool, err error) {
	p := &s.Preempt
	switch a.Name {
	case "preemptive_sched":
		on := !p.Off
		if err := setBool(&on, a, true); err != nil {
			return true, err
		}
		p.Off = !on
		return true, nil
	case "preempt_queue_prio":
		if a.Op == "" {
			p.QueuePrio = nil
			return true, nil
		}
		v := p.EffectiveQueuePrio()
		if err := setInt(&v, a, model.DefaultPreemptQueuePrio, 0); err != nil {
			return true, err
		}
		p.QueuePrio = &v
		return true, nil
	case "preempt_prio":
		return true, setChecked(&p.Prio, a, func(v string) error { _, err := policy.ParsePreemptPrio(v); return err })
	case "preempt_order":
		return true, setChecked(&p.Order, a, func(v string) error { _, err := policy.ParsePreemptOrder(v); return err })
	case "preempt_sort":
		return true, setChecked(&p.Sort, a, policy.ValidPreemptSort)
	case "max_starve":
		return true, setDuration(&p.MaxStarve, a, 0)
	}
	return false, nil
}

// setChecked sets a string attribute whose value check refuses; unset
// restores the default (the empty value).
func setChecked(dst *string, a Attr, check func(string) error) error {
	if a.Op == "" {
		*dst = ""
		return nil
	}
	if a.Op != "=" || check(a.Value) != nil {
		return badValue(a)
	}
	*dst = strings.TrimSpace(a.Value)
	return nil
}

// describePreempt lists the preemption settings, defaults included (as
// OpenPBS's qmgr prints the sched object), so that p s round-trips them.
func describePreempt(it *items, s *model.SchedConfig) {
	p := &s.Preempt
	it.add("preemptive_sched", model.FormatBool(!p.Off))
	it.add("preempt_queue_prio", strconv.FormatInt(p.EffectiveQueuePrio(), 10))
	it.add("preempt_prio", p.EffectivePrio())
	it.add("preempt_order", p.EffectiveOrder())
	it.add("preempt_sort", p.EffectiveSort())
	if p.MaxStarve > 0 {
		it.add("max_starve", model.FormatDuration(p.MaxStarve))
	}
}
