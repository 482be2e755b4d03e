package server

import (
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// depTypes are the dependency types Strata honours; "on" (the count of
// before* jobs to expect) is accepted and needs nothing, since a before*
// dependency is placed on the other job when it is named.
var depTypes = map[string]bool{
	"after": true, "afterok": true, "afternotok": true, "afterany": true,
	"before": true, "beforeok": true, "beforenotok": true, "beforeany": true,
}

// parseDepend parses "type:id[:id...][,type:id...]", expanding short ids
// with the server name. It returns the normalized text (as qstat -f shows
// depend) and the dependencies, or PBSEBadDepend.
func parseDepend(spec, server string) (string, []model.Dep, error) {
	if spec == "" {
		return "", nil, nil
	}
	var deps []model.Dep
	var parts []string
	for _, group := range strings.Split(spec, ",") {
		fields := strings.Split(group, ":")
		typ := fields[0]
		if typ == "on" {
			parts = append(parts, group)
			continue
		}
		if !depTypes[typ] || len(fields) < 2 {
			return "", nil, model.Err(model.PBSEBadDepend)
		}
		norm := []string{typ}
		for _, op := range fields[1:] {
			id, err := model.ParseJobID(op)
			if err != nil || id.Prefix != "" {
				return "", nil, model.Err(model.PBSEBadDepend)
			}
			full := id.Full(server)
			norm = append(norm, full)
			deps = append(deps, model.Dep{Type: typ, Job: full})
		}
		parts = append(parts, strings.Join(norm, ":"))
	}
	return strings.Join(parts, ","), deps, nil
}

// checkBeforeRights refuses a before* dependency on a job the caller may
// not modify: it places an after* dependency on that job, which holds it
// and deletes it if the dependency fails, so it needs the right to modify
// the target (owner, operator or manager), as qalter of it would. A target
// that does not exist (yet) is refused here as an invalid dependency, so a
// job submitted by someone else between this check and the commit can
// never become the target.
func checkBeforeRights(deps []model.Dep, id *Identity, cfg *model.ServerConfig, snap *raftstore.StateSnapshot) error {
	for _, d := range deps {
		if !strings.HasPrefix(d.Type, "before") {
			continue
		}
		t := lookupJob(snap, d.Job)
		if t == nil {
			return model.Err(model.PBSEBadDepend)
		}
		if !mayModify(id, t, cfg) {
			return model.Err(model.PBSEPerm)
		}
	}
	return nil
}
