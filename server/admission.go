package server

import (
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// admit applies the queue and server rules qmgr configures to a job that
// buildJob produced: ACLs, queue resource defaults, resources_min/max and
// max_queued. The snapshot supplies the jobs already queued.
func admit(j *model.Job, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	q := cfg.Queues[j.Queue]
	if cfg.ACLUserEnable && !aclMatch(cfg.ACLUsers, id.User, id.Host) {
		return model.Err(model.PBSEPerm)
	}
	if q.ACLUserEnable && !aclMatch(q.ACLUsers, id.User, id.Host) {
		return model.Err(model.PBSEQueueAccess)
	}
	if q.ACLGroupEnable && !containsName(q.ACLGroups, id.Group) {
		return model.Err(model.PBSEQueueAccess)
	}
	for _, name := range model.SortedKeys(q.ResourcesDefault) {
		if _, ok := j.ResourceList[name]; !ok {
			j.ResourceList[name] = q.ResourcesDefault[name]
		}
	}
	if err := checkLimits(j, cfg.Defs, q.ResourcesMin, q.ResourcesMax); err != nil {
		return err
	}
	if err := admitResvJob(j, snap, cfg); err != nil { // reservation hook point (resv.go)
		return err
	}
	return checkMaxQueued(j, cfg, snap)
}

// aclMatch accepts "user", "user@host", "*@host" and "*".
func aclMatch(acl []string, user, host string) bool {
	for _, e := range acl {
		u, h, hasHost := strings.Cut(e, "@")
		if (u == user || u == "*") && (!hasHost || h == "*" || h == host || strings.HasPrefix(host, h+".")) {
			return true
		}
	}
	return false
}

func containsName(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkLimits compares the job's Resource_List with a queue's
// resources_min/max; numeric resources by amount, others by equality.
func checkLimits(j *model.Job, defs model.ResourceDefs, min, max map[string]string) error {
	for bound, m := range map[string]map[string]string{"min": min, "max": max} {
		for name, lim := range m {
			have, ok := j.ResourceList[name]
			if !ok {
				continue
			}
			d := defs[name]
			if !d.Numeric() {
				if bound == "max" && have != lim {
					return model.Err(model.PBSEExceedsLimits)
				}
				continue
			}
			h, err1 := d.Amount(have)
			l, err2 := d.Amount(lim)
			if err1 != nil || err2 != nil {
				continue
			}
			if (bound == "max" && h > l) || (bound == "min" && h < l) {
				return model.Err(model.PBSEExceedsLimits)
			}
		}
	}
	return nil
}

// checkMaxQueued enforces the server's and the queue's max_queued: jobs
// not finished count, per overall, user and group limits.
func checkMaxQueued(j *model.Job, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	q := cfg.Queues[j.Queue]
	srvLimits, _ := model.ParseLimits(cfg.MaxQueued)
	qLimits, _ := model.ParseLimits(q.MaxQueued)
	if len(srvLimits) == 0 && len(qLimits) == 0 {
		return nil
	}
	var all, user, group, qAll, qUser, qGroup int64
	for _, o := range snap.Jobs() {
		if o.IsFinished() {
			continue
		}
		inQ := o.Queue == j.Queue
		all++
		if inQ {
			qAll++
		}
		if o.User == j.User {
			user++
			if inQ {
				qUser++
			}
		}
		if o.Group == j.Group {
			group++
			if inQ {
				qGroup++
			}
		}
	}
	check := func(ls []model.Limit, where string, all, user, group int64) error {
		for _, c := range []struct {
			kind byte
			name string
			n    int64
		}{{'o', "PBS_ALL", all}, {'u', j.User, user}, {'g', j.Group, group}} {
			lim, ok := model.LimitFor(ls, c.kind, c.name)
			if !ok {
				continue
			}
			if c.n >= lim {
				return &model.PBSError{Code: model.PBSEMaxQueued, Msg: model.Message(model.PBSEMaxQueued) + " " + where}
			}
		}
		return nil
	}
	if err := check(qLimits, j.Queue, qAll, qUser, qGroup); err != nil {
		return err
	}
	return check(srvLimits, "server", all, user, group)
}

// runAllowance returns a filter that admits queued jobs as scheduling
// candidates while the server and queue max_run limits leave room.
func runAllowance(cfg *model.ServerConfig, running []*model.Job) func(j *model.Job) bool {
	srv, _ := model.ParseLimits(cfg.MaxRun)
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
	// Each admitted job counts against the limits, so one cycle cannot
	// overshoot them.
	return func(j *model.Job) bool {
		ql, _ := model.ParseLimits(cfg.Queues[j.Queue].MaxRun)
		if over(srv, "", j) || over(ql, "q", j, j.Queue) {
			return false
		}
		for _, k := range []string{key("o"), key("u", j.User), key("g", j.Group), key("qo", j.Queue), key("qu", j.Queue, j.User), key("qg", j.Queue, j.Group)} {
			counts[k]++
		}
		return true
	}
}
