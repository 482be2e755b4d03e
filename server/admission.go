package server

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// admit applies the queue and server rules qmgr configures to a job that
// buildJob produced: ACLs, queue resource defaults, resources_min/max and
// max_queued. The snapshot supplies the jobs already queued.
func admit(j *model.Job, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	q := cfg.Queues[j.Queue]
	if cfg.ACLHostEnable && !hostACLMatch(cfg.ACLHosts, id.Host) {
		return model.Err(model.PBSEPerm)
	}
	if cfg.ACLUserEnable && !aclMatch(cfg.ACLUsers, id.User, id.Host) {
		return model.Err(model.PBSEPerm)
	}
	if q.ACLUserEnable && !aclMatch(q.ACLUsers, id.User, id.Host) {
		return model.Err(model.PBSEQueueAccess)
	}
	if q.ACLGroupEnable && !containsName(q.ACLGroups, id.Group) {
		return model.Err(model.PBSEQueueAccess)
	}
	if q.ACLHostEnable && !hostACLMatch(q.ACLHosts, id.Host) {
		return &model.PBSError{Code: model.PBSEBadHost, Msg: model.MsgBadHost}
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

// admitMove is qmove's admission: the job, as it would be in the
// destination queue, goes through exactly what qsub's admission checks
// (admit), on behalf of the job's owner, as PBS checks a moved job's owner
// against the destination's ACLs. Reservation queues carry the
// reservation's Authorized_Users as their ACL, so only those users' jobs
// may be moved into one.
func admitMove(j *model.Job, queue string, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	q, ok := cfg.Queues[queue]
	if !ok {
		return model.Err(model.PBSEUnknownQueue)
	}
	if !q.Enabled {
		return model.Err(model.PBSEQueueNotEnabled)
	}
	c := j.Copy()
	c.Queue = queue
	return admit(c, ownerIdentity(j), cfg, snap)
}

// ownerIdentity is the identity of a job's owner as admission sees it.
func ownerIdentity(j *model.Job) *Identity {
	_, host, _ := strings.Cut(j.Owner, "@")
	return &Identity{User: j.User, UID: j.UID, GID: j.GID, Group: j.Group, Host: host}
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

// hostACLMatch accepts a host named in acl: "host" (also matching
// host.domain), "host.domain" (also matching its short name), "*.domain"
// and "*"; names compare without case. An entry "-host" denies that host
// even when a later entry would allow it, as PBS ACLs do.
func hostACLMatch(acl []string, host string) bool {
	host = strings.ToLower(host)
	match := func(e string) bool {
		switch {
		case e == "*":
			return true
		case strings.HasPrefix(e, "*."):
			return strings.HasSuffix(host, e[1:])
		}
		es, _, _ := strings.Cut(e, ".")
		return e == host || strings.HasPrefix(host, e+".") || (e != es && es == host)
	}
	for _, e := range acl {
		e = strings.ToLower(strings.TrimSpace(e))
		if deny, ok := strings.CutPrefix(e, "-"); ok && match(deny) {
			return false
		}
	}
	for _, e := range acl {
		e = strings.ToLower(strings.TrimSpace(e))
		if !strings.HasPrefix(e, "-") && match(strings.TrimPrefix(e, "+")) {
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
// not finished count, per overall, user, group and project limits. The
// texts are OpenPBS's: a limit on everyone or on a named entity is "already
// in" (PBSE 15142, exit 38); a PBS_GENERIC limit "would exceed" (15143,
// exit 39). The server's scope is called "complex", as in PBS.
func checkMaxQueued(j *model.Job, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	q := cfg.Queues[j.Queue]
	srvLimits, _ := model.ParseLimits(cfg.MaxQueued)
	qLimits, _ := model.ParseLimits(q.MaxQueued)
	if len(srvLimits) == 0 && len(qLimits) == 0 {
		return nil
	}
	type counts struct{ all, user, group, project int64 }
	var srv, inQ counts
	for _, o := range snap.JobRows() {
		if o.IsFinished() || (j.ID != "" && o.ID == j.ID) {
			continue // a moved job does not count against itself
		}
		for _, c := range []*counts{&srv, &inQ} {
			if c == &inQ && o.Queue != j.Queue {
				continue
			}
			c.all++
			if o.User == j.User {
				c.user++
			}
			if o.Group == j.Group {
				c.group++
			}
			if o.Project == j.Project {
				c.project++
			}
		}
	}
	check := func(ls []model.Limit, c counts, queue string) error {
		where := "complex"
		if queue != "" {
			where = "queue " + queue
		}
		if lim, ok := limitNamed(ls, 'o', "PBS_ALL"); ok && c.all >= lim {
			return &model.PBSError{Code: model.PBSEMaxQueued, Msg: "Maximum number of jobs already in " + where}
		}
		for _, e := range []struct {
			kind       byte
			word, name string
			n          int64
		}{{'u', "user", j.User, c.user}, {'g', "group", j.Group, c.group}, {'p', "project", j.Project, c.project}} {
			if lim, ok := limitNamed(ls, e.kind, e.name); ok {
				if e.n >= lim {
					return &model.PBSError{Code: model.PBSEMaxQueued, Msg: fmt.Sprintf("Maximum number of jobs for %s %s already in %s", e.word, e.name, where)}
				}
				continue
			}
			if lim, ok := limitNamed(ls, e.kind, "PBS_GENERIC"); ok && e.n >= lim {
				scope := "complex's"
				if queue != "" {
					scope = "queue " + queue + "'s"
				}
				return &model.PBSError{Code: model.PBSEMaxQueuedWouldBe, Msg: fmt.Sprintf("would exceed %s per-%s limit", scope, e.word)}
			}
		}
		return nil
	}
	if err := check(qLimits, inQ, j.Queue); err != nil {
		return err
	}
	return check(srvLimits, srv, "")
}

// limitNamed is the limit of exactly this entity (no PBS_GENERIC fallback).
func limitNamed(ls []model.Limit, kind byte, who string) (int64, bool) {
	for _, l := range ls {
		if l.Kind == kind && l.Who == who {
			return l.Value, true
		}
	}
	return 0, false
}
