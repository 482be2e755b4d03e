package schedglue

import (
	"strings"

	"github.com/strata-hpc/strata/model"
)

// RunAllowance returns a filter that admits queued jobs as scheduling
// candidates while the server and queue max_run limits leave room. Each
// admitted job counts against the limits, so one cycle cannot overshoot
// them; the caller offers the jobs in the scheduler's order.
func RunAllowance(cfg *model.ServerConfig, running []*model.Job) func(j *model.Job) bool {
	srv, _ := model.ParseLimits(cfg.MaxRun)
	queues := make(map[string][]model.Limit, len(cfg.Queues))
	for name, q := range cfg.Queues {
		if ql, _ := model.ParseLimits(q.MaxRun); len(ql) > 0 {
			queues[name] = ql
		}
	}
	if len(srv) == 0 && len(queues) == 0 {
		// No limit anywhere: every job is a candidate, and a long queue
		// costs no counting per job and cycle.
		return func(*model.Job) bool { return true }
	}
	counts := map[string]int64{}
	key := func(parts ...string) string { return strings.Join(parts, "\x00") }
	for _, r := range running {
		counts[key("o")]++
		counts[key("u", r.User)]++
		counts[key("g", r.Group)]++
		counts[key("qo", r.Queue)]++
		counts[key("qu", r.Queue, r.User)]++
		counts[key("qg", r.Queue, r.Group)]++
	}
	over := func(ls []model.Limit, prefix string, j *model.Job, scope ...string) bool {
		for _, c := range []struct {
			kind byte
			name string
			k    string
		}{{'o', "PBS_ALL", key(append([]string{prefix + "o"}, scope...)...)},
			{'u', j.User, key(append(append([]string{prefix + "u"}, scope...), j.User)...)},
			{'g', j.Group, key(append(append([]string{prefix + "g"}, scope...), j.Group)...)}} {
			if lim, ok := model.LimitFor(ls, c.kind, c.name); ok && counts[c.k] >= lim {
				return true
			}
		}
		return false
	}
	return func(j *model.Job) bool {
		if over(srv, "", j) || over(queues[j.Queue], "q", j, j.Queue) {
			return false
		}
		for _, k := range []string{key("o"), key("u", j.User), key("g", j.Group), key("qo", j.Queue), key("qu", j.Queue, j.User), key("qg", j.Queue, j.Group)} {
			counts[k]++
		}
		return true
	}
}
