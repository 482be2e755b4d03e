package manager

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestPreemptAttributes: what qmgr stores and shows for the preemption
// settings, defaults shown when unset, and bad values refused.
func TestPreemptAttributes(t *testing.T) {
	sch := func(attrs ...Attr) Request { return set(Sched, "", attrs...) }
	cases := []struct {
		name string
		reqs []Request
		item string
		want string
		code int
	}{
		{"preemptive_sched default", []Request{sch(a("strict_ordering", "=", "f"))}, "preemptive_sched", "True", 0},
		{"preemptive_sched off", []Request{sch(a("preemptive_sched", "=", "false"))}, "preemptive_sched", "False", 0},
		{"preemptive_sched unset", []Request{sch(a("preemptive_sched", "=", "false")), unset(Sched, "", "preemptive_sched")}, "preemptive_sched", "True", 0},
		{"preempt_queue_prio default", []Request{sch(a("strict_ordering", "=", "f"))}, "preempt_queue_prio", "150", 0},
		{"preempt_queue_prio", []Request{sch(a("preempt_queue_prio", "=", "120"))}, "preempt_queue_prio", "120", 0},
		{"preempt_queue_prio negative", []Request{sch(a("preempt_queue_prio", "=", "-1"))}, "", "", model.PBSEBadAttrVal},
		{"preempt_prio default", []Request{sch(a("strict_ordering", "=", "f"))}, "preempt_prio", "express_queue, normal_jobs", 0},
		{"preempt_prio", []Request{sch(a("preempt_prio", "=", "express_queue, normal_jobs, queue_softlimits"))}, "preempt_prio", "express_queue, normal_jobs, queue_softlimits", 0},
		{"preempt_prio bad class", []Request{sch(a("preempt_prio", "=", "express_queue, vip"))}, "", "", model.PBSEBadAttrVal},
		{"preempt_order", []Request{sch(a("preempt_order", "=", "SCR 80 SC 50 S"))}, "preempt_order", "SCR 80 SC 50 S", 0},
		{"preempt_order bad", []Request{sch(a("preempt_order", "=", "SX"))}, "", "", model.PBSEBadAttrVal},
		{"preempt_order unset", []Request{sch(a("preempt_order", "=", "R")), unset(Sched, "", "preempt_order")}, "preempt_order", "SCR", 0},
		{"preempt_sort", []Request{sch(a("preempt_sort", "=", "min_time_since_start"))}, "preempt_sort", "min_time_since_start", 0},
		{"preempt_sort bad", []Request{sch(a("preempt_sort", "=", "random"))}, "", "", model.PBSEBadAttrVal},
		{"max_starve", []Request{sch(a("max_starve", "=", "12:00:00"))}, "max_starve", "12:00:00", 0},
		{"server max_run_soft", []Request{set(Server, "", a("max_run_soft", "=", "[u:PBS_GENERIC=2]"))}, "max_run_soft", "[u:PBS_GENERIC=2]", 0},
		{"queue max_run_soft", []Request{set(Queue, "workq", a("max_run_soft", "=", "[g:PBS_GENERIC=3]"))}, "max_run_soft", "[g:PBS_GENERIC=3]", 0},
		{"queue max_run_soft bad", []Request{set(Queue, "workq", a("max_run_soft", "=", "[z:x=1]"))}, "", "", model.PBSEBadAttrVal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := describeItem(t, tc.reqs, tc.item)
			if tc.code != 0 {
				if e, ok := model.AsPBSError(err); !ok || e.Code != tc.code {
					t.Fatalf("error %v, want code %d", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got != tc.want {
				t.Fatalf("%s = %q, want %q", tc.item, got, tc.want)
			}
		})
	}
}
