package server

import (
	"fmt"
	"net"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// validJoinKeep reports whether v is one of the Join_Path or Keep_Files
// values PBS accepts.
func validJoinKeep(v string) bool {
	switch v {
	case "n", "oe", "eo", "o", "e", "d", "od", "ed", "oed", "dn":
		return true
	}
	return false
}

// validJobName reports whether s is a PBS job or reservation name: 1 to 230
// of [A-Za-z0-9._+-]. A hand-written loop, not a regexp: a package-level
// MustCompile of `{1,230}` cost every process of the multi-call binary
// (each qsub and each job's shepherd) 0.7 ms and 3,000 allocations at start.
func validJobName(s string) bool {
	if len(s) < 1 || len(s) > 230 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// buildJob validates a submission and turns it into the job the FSM will
// store: owner from the authenticated identity, queue and resource defaults
// applied, select/place normalized, Resource_List totals derived. The FSM
// assigns the id and the default output paths.
func buildJob(req *api.SubmitRequest, id *Identity, cfg *model.ServerConfig) (*model.Job, error) {
	if id.UID == 0 && !rootMaySubmit(id, cfg) { // remoteauth.go
		return nil, model.Errorf(model.PBSEPerm, "(root may not submit jobs; set acl_roots or allow_root_jobs)")
	}
	if err := checkSubmitTexts(req); err != nil {
		return nil, err
	}
	if req.Script == "" && len(req.Argv) == 0 && req.Interactive == "" {
		return nil, &model.PBSError{Code: model.PBSEInvalidRequest, Msg: "Invalid request: the job has no script and no command"}
	}
	queue := req.Queue
	if queue == "" {
		queue = cfg.DefaultQueue
		if queue == "" {
			return nil, model.Err(model.PBSENoDefaultQueue)
		}
	}
	q, ok := cfg.Queues[queue]
	if !ok {
		return nil, model.Err(model.PBSEUnknownQueue)
	}
	if !q.Enabled {
		return nil, model.Err(model.PBSEQueueNotEnabled)
	}
	name := req.Name
	if name == "" {
		name = "STDIN"
	}
	if !validJobName(name) {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Job_Name")
	}
	if req.Priority < -1024 || req.Priority > 1023 {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Priority")
	}
	for _, pair := range []struct{ v, attr string }{{req.Join, "Join_Path"}, {req.Keep, "Keep_Files"}} {
		if pair.v != "" && !validJoinKeep(pair.v) {
			return nil, model.Errorf(model.PBSEBadAttrVal, " %s", pair.attr)
		}
	}
	list, sel, place, err := resolveResources(req.Resources, withQueueDefaults(cfg, q))
	if err != nil {
		return nil, err
	}
	// The host part of the owner and Submit_Host come from the
	// authenticated connection, never from the request: they are written
	// into accounting records and matched by host ACLs.
	j := &model.Job{
		Name:         name,
		Owner:        id.User + "@" + id.Host,
		User:         id.User,
		Group:        id.Group,
		UID:          id.UID,
		GID:          id.GID,
		Queue:        queue,
		Priority:     req.Priority,
		Hold:         "n",
		Join:         orDefault(req.Join, "n"),
		Keep:         orDefault(req.Keep, "n"),
		Rerun:        req.Rerunable == nil || *req.Rerunable,
		Output:       req.Output,
		Error:        req.Error,
		Shell:        req.Shell,
		Account:      req.Account,
		Project:      orDefault(req.Project, "_pbs_project_default"),
		Mail:         orDefault(req.MailPoints, "a"),
		MailTo:       req.MailUsers,
		Checkpt:      "u",
		ResourceList: list,
		Select:       sel,
		Place:        place,
		Env:          req.Env,
		Script:       req.Script,
		Argv:         req.Argv,
		SubmitArgs:   req.SubmitArgs,
		SubmitHost:   id.Host,
		Token:        req.Token,
	}
	if req.Hold != "" {
		if strings.Trim(req.Hold, "uos") != "" {
			return nil, model.Errorf(model.PBSEBadAttrVal, " Hold_Types")
		}
		j.Hold = req.Hold
	}
	if req.ExecTime < 0 {
		return nil, model.Errorf(model.PBSEBadAttrVal, " Execution_Time")
	}
	j.SetExecTime(req.ExecTime)
	j.SetGroupList(req.GroupList)
	if req.Umask != "" {
		v, ok := model.ParseUmask(req.Umask)
		if !ok {
			return nil, model.Errorf(model.PBSEBadAttrVal, " umask")
		}
		// Stored as PBS shows it: octal digits without leading zeros.
		j.SetUmask(strconv.FormatInt(int64(v), 8))
	}
	if err := checkPathHosts(&req.Output, &req.Error); err != nil {
		return nil, err
	}
	if req.Stagein != "" {
		stagein, err := stageList("stagein", req.Stagein)
		if err != nil {
			return nil, err
		}
		j.SetStagein(stagein)
	}
	if req.Stageout != "" {
		stageout, err := stageList("stageout", req.Stageout)
		if err != nil {
			return nil, err
		}
		j.SetStageout(stageout)
	}
	if j.SetCreateResvFromJob(req.CreateResvFromJob); j.CreateResvFromJob() && (req.ArrayIndices != "" || model.IsResvQueue(j.Queue)) {
		return nil, model.Errorf(model.PBSEBadAttrVal, " create_resv_from_job") // not for arrays or jobs already in a reservation
	}
	depend, deps, err := parseDepend(req.Depend, cfg.Name)
	if err != nil {
		return nil, err
	}
	j.SetDepend(depend)
	j.SetDeps(deps)
	if req.ArrayIndices != "" {
		if j.Array, err = model.ParseArraySpec(req.ArrayIndices); err != nil {
			return nil, model.Errorf(model.PBSEBadAttrVal, " array_indices_submitted")
		}
		if err := checkArraySize(j, cfg); err != nil {
			return nil, err
		}
	}
	if req.Interactive != "" {
		if err := interactiveSession(j, req); err != nil {
			return nil, err
		}
	}
	if j.EnvValue("PBS_O_WORKDIR") == "" {
		j.Env = append(j.Env, model.EnvVar{Name: "PBS_O_WORKDIR", Value: req.Workdir})
	}
	return j, nil
}

// resolveResources applies the PBS rules for -l: job-wide resources are
// normalized; a select is parsed into chunks (chunk defaults added); without
// a select the host-level job-wide resources become "1:<them>" with
// place=pack; Resource_List gets ncpus, mem and nodect totals.
func resolveResources(in map[string]string, cfg *model.ServerConfig) (map[string]string, model.Select, model.Place, error) {
	defs := cfg.Defs.WithBuiltins() // soft_walltime on clusters seeded before it
	list := map[string]string{}
	var hostLevel []string
	for _, name := range model.SortedKeys(in) {
		v := in[name]
		if name == "select" || name == "place" {
			continue
		}
		if name == "nodes" {
			continue // converted to select below
		}
		d, ok := defs[name]
		if !ok {
			return nil, nil, model.Place{}, model.Errorf(model.PBSEUnknownResource, " Resource_List.%s", name)
		}
		norm, err := d.Normalize(v)
		if err != nil {
			return nil, nil, model.Place{}, model.Errorf(model.PBSEBadAttrVal, " Resource_List.%s", name)
		}
		list[name] = norm
		if d.HostLevel() {
			hostLevel = append(hostLevel, name)
		}
	}
	selText, hasSelect := in["select"]
	placeText, hasPlace := in["place"]
	if nodes, ok := in["nodes"]; ok {
		if hasSelect || hasPlace {
			return nil, nil, model.Place{}, model.Errorf(model.PBSEInvalNodePlace, "nodes")
		}
		if len(hostLevel) > 0 {
			return nil, nil, model.Place{}, model.Errorf(model.PBSEInvalNodePlace, "%s", hostLevel[0])
		}
		sel, place, err := convertNodes(nodes)
		if err != nil {
			return nil, nil, model.Place{}, err
		}
		selText, placeText, hasSelect, hasPlace = sel, place, true, true
	}
	if hasPlace && !hasSelect {
		return nil, nil, model.Place{}, model.Err(model.PBSEPlaceNoSelect)
	}
	if hasSelect && len(hostLevel) > 0 {
		return nil, nil, model.Place{}, model.Errorf(model.PBSEInvalNodePlace, "%s", hostLevel[0])
	}
	var place model.Place
	if hasSelect {
		if hasPlace {
			p, err := model.ParsePlace(placeText)
			if err != nil {
				return nil, nil, place, err
			}
			place = p
		} else {
			place = model.Place{Arrangement: model.PlaceFree}
		}
	} else {
		// Old-style job-wide request: it becomes one chunk, ncpus and mem
		// first as PBS writes them.
		sort.SliceStable(hostLevel, func(a, b int) bool { return chunkOrder(hostLevel[a]) < chunkOrder(hostLevel[b]) })
		var parts []string
		for _, name := range hostLevel {
			parts = append(parts, name+"="+list[name])
			delete(list, name)
		}
		if len(parts) == 0 {
			parts = []string{"ncpus=1"}
		}
		selText = "1:" + strings.Join(parts, ":")
		place = model.Place{Arrangement: model.PlacePack}
	}
	sel, err := model.ParseSelect(selText, defs)
	if err != nil {
		return nil, nil, place, err
	}
	// Provisioning hook point: one AOE per job (docs/provisioning.md).
	if err := model.CheckAOEChunks(sel); err != nil {
		return nil, nil, place, err
	}
	list["select"] = sel.String()
	list["place"] = place.String()
	for _, name := range model.SortedKeys(cfg.ResourcesDefault) {
		if _, ok := list[name]; !ok {
			if d, ok := defs[name]; ok && !d.HostLevel() {
				list[name], _ = d.Normalize(cfg.ResourcesDefault[name])
			}
		}
	}
	sched := make(model.Select, len(sel))
	for i, c := range sel {
		for _, name := range model.SortedKeys(cfg.DefaultChunk) {
			c, err = c.WithDefault(name, cfg.DefaultChunk[name], defs)
			if err != nil {
				return nil, nil, place, fmt.Errorf("default_chunk.%s: %w", name, err)
			}
		}
		sched[i] = c
	}
	if n := sched.Total("ncpus"); n > 0 {
		list["ncpus"] = strconv.FormatInt(int64(n), 10)
	}
	if m := sched.Total("mem"); m > 0 {
		list["mem"] = model.FormatSize(int64(m))
	}
	list["nodect"] = strconv.Itoa(sched.NodeCount())
	return list, sched, place, nil
}

func chunkOrder(name string) int {
	switch name {
	case "ncpus":
		return 0
	case "mem":
		return 1
	}
	return 2
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// withQueueDefaults returns cfg with the queue's default_chunk entries laid
// over the server's (queue defaults win, as in PBS).
func withQueueDefaults(cfg *model.ServerConfig, q model.QueueConfig) *model.ServerConfig {
	if len(q.DefaultChunk) == 0 {
		return cfg
	}
	c := *cfg
	c.DefaultChunk = map[string]string{}
	for k, v := range cfg.DefaultChunk {
		c.DefaultChunk[k] = v
	}
	for k, v := range q.DefaultChunk {
		c.DefaultChunk[k] = v
	}
	return &c
}

// interactiveSession makes j an interactive job (qsub -I): the agent will
// connect to the address qsub listens on and present the cookie. As in
// PBS, an interactive job is not rerunnable and cannot be an array; its
// script, if any, gave only directives.
var interactiveAddrRE = regexp.MustCompile(`^[A-Za-z0-9._:\[\]-]+$`)

func interactiveSession(j *model.Job, req *api.SubmitRequest) error {
	host, port, err := net.SplitHostPort(req.Interactive)
	if err != nil || host == "" || len(req.Interactive) > 300 || !interactiveAddrRE.MatchString(req.Interactive) {
		return model.Errorf(model.PBSEBadAttrVal, " interactive")
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return model.Errorf(model.PBSEBadAttrVal, " interactive")
	}
	if len(req.InteractiveCookie) != api.InteractiveCookieLen || strings.Trim(req.InteractiveCookie, "0123456789abcdef") != "" {
		return model.Errorf(model.PBSEBadAttrVal, " interactive")
	}
	if j.Array != nil {
		return model.Errorf(model.PBSEBadAttrVal, " interactive")
	}
	j.SetInteractive(true)
	j.SetInteractiveAddr(req.Interactive)
	j.SetInteractiveCookie(req.InteractiveCookie)
	j.Rerun = false
	j.Script, j.Argv = "", nil
	return nil
}
