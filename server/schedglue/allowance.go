package schedglue

import (
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Allowance decides whether a queued job may be a scheduling candidate under
// the server and queue max_run limits. When it may not, why is the reason
// OpenPBS gives in the job's comment (without the "Not Running: " prefix).
type Allowance func(j *model.Job) (ok bool, why string)

// RunAllowance returns the Allowance of a cycle. Each admitted job counts
// against the limits, so one cycle cannot overshoot them; the caller
// offers the jobs in the scheduler's order.
func RunAllowance(cfg *model.ServerConfig, running []*model.Job) Allowance {
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
		return func(*model.Job) (bool, string) { return true, "" }
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
	// over reports the first limit of ls the job would exceed, worded as
	// OpenPBS words it (queue is "" for the server's limits).
	over := func(ls []model.Limit, j *model.Job, queue string) (string, bool) {
		prefix, scope := "", []string{}
		if queue != "" {
			prefix, scope = "q", []string{queue}
		}
		for _, c := range []struct {
			kind byte
			name string
			k    string
		}{{'o', "PBS_ALL", key(append([]string{prefix + "o"}, scope...)...)},
			{'u', j.User, key(append(append([]string{prefix + "u"}, scope...), j.User)...)},
			{'g', j.Group, key(append(append([]string{prefix + "g"}, scope...), j.Group)...)}} {
			if lim, ok := model.LimitFor(ls, c.kind, c.name); ok && counts[c.k] >= lim {
				return limitMessage(c.kind, c.name, named(ls, c.kind, c.name), queue), true
			}
		}
		return "", false
	}
	return func(j *model.Job) (bool, string) {
		if why, hit := over(srv, j, ""); hit {
			return false, why
		}
		if why, hit := over(queues[j.Queue], j, j.Queue); hit {
			return false, why
		}
		for _, k := range []string{key("o"), key("u", j.User), key("g", j.Group), key("qo", j.Queue), key("qu", j.Queue, j.User), key("qg", j.Queue, j.Group)} {
			counts[k]++
		}
		return true, ""
	}
}

// named reports whether the limit of kind that applies to name is an
// entry of its own (u:alice) rather than the generic one (u:PBS_GENERIC):
// OpenPBS words the two differently.
func named(ls []model.Limit, kind byte, name string) bool {
	for _, l := range ls {
		if l.Kind == kind && l.Who == name {
			return true
		}
	}
	return false
}

// limitMessage is OpenPBS's comment for a job held back by a max_run
// limit (job_info.cpp, fctt: SERVER_JOB_LIMIT_REACHED and its siblings).
func limitMessage(kind byte, name string, own bool, queue string) string {
	switch {
	case kind == 'o' && queue == "":
		return "Server job limit has been reached."
	case kind == 'o':
		return "Queue " + queue + " job limit has been reached."
	}
	who := map[byte]string{'u': "user", 'g': "group"}[kind]
	if own {
		if queue == "" {
			return "Server job limit reached for " + who + " " + name
		}
		return "Queue " + queue + " job limit reached for " + who + " " + name
	}
	switch {
	case kind == 'u' && queue == "":
		return "User has reached server running job limit."
	case kind == 'u':
		return "User has reached queue " + queue + " running job limit."
	case queue == "":
		return "Group has reached server running limit."
	default:
		return "Group has reached queue " + queue + " running limit."
	}
}
