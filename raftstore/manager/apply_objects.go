package manager

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

func validNodeSortKey(defs model.ResourceDefs) func(string) bool {
	return func(s string) bool {
		k, err := policy.ParseNodeSortKey(s)
		if err != nil {
			return false
		}
		if k.Resource == policy.SortPriority || k.Resource == policy.LastUsedTime {
			return true
		}
		_, ok := defs[k.Resource]
		return ok
	}
}

// validJobSortKey accepts "<resource|job_priority|fair_share_perc> HIGH|LOW".
func validJobSortKey(defs model.ResourceDefs) func(string) bool {
	return func(s string) bool {
		f := strings.Fields(s)
		if len(f) != 2 || (f[1] != "HIGH" && f[1] != "LOW") {
			return false
		}
		switch f[0] {
		case "job_priority", "fair_share_perc", "preempt_priority", "sort_priority":
			return true
		}
		_, ok := defs[f[0]]
		return ok
	}
}

// parseMillis reads a Go duration ("20ms") or seconds ("0.5"), at most
// what a time.Duration holds (so FormatMillis prints it back). NaN and
// values past that bound used to become negative or wrapped intervals.
func parseMillis(v string) (int64, error) {
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d.Milliseconds(), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0) || f > float64(math.MaxInt64/int64(time.Second)) {
		return 0, strconv.ErrSyntax
	}
	return int64(f * 1000), nil
}

// FormatMillis prints sched_min_interval so parseMillis reads it back.
func FormatMillis(ms int64) string { return (time.Duration(ms) * time.Millisecond).String() }

// --- resource ---------------------------------------------------------------

func applyResource(c *model.ServerConfig, st VnodeSource, req *Request, res *Result) error {
	builtin := model.BuiltinResources()
	d, exists := c.Defs[req.Name]
	switch req.Verb {
	case Create:
		if exists {
			return perr(PBSEResourceExists)
		}
		d = model.ResourceDef{Name: req.Name, Type: model.TypeLong}
	case Delete:
		if !exists {
			return model.Errorf(model.PBSEUnknownResource, " %s", req.Name)
		}
		if _, ok := builtin[req.Name]; ok {
			return &model.PBSError{Code: model.PBSEPerm, Msg: "Unauthorized Request  (built-in resource)"}
		}
		if resourceInUse(c, st, req.Name) {
			return perr(PBSEResourceBusyUse)
		}
		delete(c.Defs, req.Name)
		res.ResourcesChanged = true
		return nil
	case Set, Unset:
		if !exists {
			return model.Errorf(model.PBSEUnknownResource, " %s", req.Name)
		}
		if _, ok := builtin[req.Name]; ok {
			return &model.PBSError{Code: model.PBSEPerm, Msg: "Unauthorized Request  (built-in resource)"}
		}
	default:
		return badVerb(req)
	}
	err := eachAttr(req, func(a Attr) error {
		switch a.Name {
		case "type":
			if a.Op == "" {
				d.Type = model.TypeLong
				return nil
			}
			if a.Op != "=" {
				return badValue(a)
			}
			d.Type = model.ResourceType(a.Value)
		case "flag":
			if a.Op == "" {
				d.Flags = ""
				return nil
			}
			if a.Op != "=" {
				return badValue(a)
			}
			d.Flags = a.Value
		default:
			return noAttr(a)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := d.Validate(); err != nil {
		return &model.PBSError{Code: model.PBSEBadAttrVal, Msg: "Illegal attribute or resource value " + err.Error()}
	}
	c.Defs[req.Name] = d
	res.ResourcesChanged = true
	return nil
}

func resourceInUse(c *model.ServerConfig, st VnodeSource, name string) bool {
	if groupKeyUses(c, name) { // placement sets (psets.go)
		return true
	}
	if _, ok := c.DefaultChunk[name]; ok {
		return true
	}
	if _, ok := c.ResourcesDefault[name]; ok {
		return true
	}
	for _, q := range c.Queues {
		for _, m := range []map[string]string{q.ResourcesMax, q.ResourcesMin, q.ResourcesDefault, q.DefaultChunk} {
			if _, ok := m[name]; ok {
				return true
			}
		}
	}
	for _, v := range st.Vnodes() {
		if _, ok := v.Available[name]; ok {
			return true
		}
	}
	return false
}

// --- hook -------------------------------------------------------------------

func applyHook(c *model.ServerConfig, req *Request) error {
	if c.Hooks == nil {
		c.Hooks = map[string]model.Hook{}
	}
	old, exists := c.Hooks[req.Name]
	h := old
	switch req.Verb {
	case Create:
		if exists {
			return hookErr("hook name '%s' already registered", req.Name)
		}
		if !validName(req.Name) || strings.HasPrefix(req.Name, "PBS") {
			return hookErr("%s: invalid hook name", req.Name)
		}
		h = model.DefaultHook(req.Name)
		def := model.DefaultHook(req.Name)
		if err := eachAttr(req, func(a Attr) error { return setHookAttr(&h, def, a) }); err != nil {
			return err
		}
	case Delete:
		if !exists {
			return hookErr("%s does not exist!", req.Name)
		}
		delete(c.Hooks, req.Name)
		if model.HookRunsOnAgents(&old) {
			c.HookVersion++
		}
		return nil
	case Set, Unset:
		if !exists {
			return hookErr("%s does not exist!", req.Name)
		}
		def := model.DefaultHook(req.Name)
		err := eachAttr(req, func(a Attr) error { return setHookAttr(&h, def, a) })
		if err != nil {
			return err
		}
	case Import:
		if !exists {
			return hookErr("%s does not exist!", req.Name)
		}
		switch req.ContentType {
		case model.HookContentPython, model.HookContentExecutable:
			if req.Content == "" {
				return hookErr("%s: empty hook script", req.Name)
			}
			h.ContentType, h.Script = req.ContentType, req.Content
		case model.HookContentConfig:
			h.Config = req.Content
		default:
			return hookErr("<content-type> must be application/x-python, application/x-executable or application/x-config")
		}
	default:
		return badVerb(req)
	}
	if err := model.CheckHook(&h, c.Hooks); err != nil {
		return hookErr("%s", err.Error())
	}
	c.Hooks[req.Name] = h
	if model.HookRunsOnAgents(&h) || (exists && model.HookRunsOnAgents(&old)) {
		c.HookVersion++
	}
	return nil
}

func setHookAttr(h *model.Hook, def model.Hook, a Attr) error {
	switch a.Name {
	case "type":
		if a.Op != "" && a.Value != "site" {
			return hookErr("type: only site hooks may be created")
		}
		return nil
	case "enabled":
		return setBool(&h.Enabled, a, def.Enabled)
	case "debug":
		return setBool(&h.Debug, a, def.Debug)
	case "event":
		if a.Op == "" {
			h.Events = nil
			return nil
		}
		for _, e := range splitList(a.Value) {
			if !model.KnownHookEvent(e) {
				return hookErr("invalid argument (%s) to event. Should be one or more of: %s", e, strings.Join(append(append([]string(nil), model.HookServerEvents...), model.HookAgentEvents...), ","))
			}
		}
		if a.Value == "\"\"" || a.Value == "" {
			h.Events = nil
			return nil
		}
		return setList(&h.Events, a, nil)
	case "user":
		if a.Op != "" && a.Value != "pbsadmin" && a.Value != "pbsuser" {
			return hookErr("user value must be pbsadmin or pbsuser")
		}
		return setString(&h.User, a, def.User)
	case "fail_action":
		if a.Op == "" {
			h.FailAction = def.FailAction
			return nil
		}
		cur := splitList(h.FailAction)
		if err := setList(&cur, a, nil); err != nil {
			return err
		}
		if len(cur) > 1 && containsStr(cur, model.HookFailNone) {
			cur = removeStr(cur, model.HookFailNone)
		}
		if len(cur) == 0 {
			cur = []string{model.HookFailNone}
		}
		h.FailAction = strings.Join(cur, ",")
		return nil
	case "alarm":
		return setSmallInt(&h.Alarm, a, def.Alarm, 1, 1<<30)
	case "order":
		return setSmallInt(&h.Order, a, def.Order, 1, 1000)
	case "freq":
		return setSmallInt(&h.Freq, a, def.Freq, 1, 1<<30)
	case "provision_mode": // Strata: where a provision hook runs
		if a.Op != "" && a.Value != model.ProvModeAgent && a.Value != model.ProvModeServer && a.Value != model.ProvModeSSH {
			return hookErr("provision_mode value must be agent, server or ssh")
		}
		return setString(&h.ProvisionMode, a, "")
	}
	return noAttr(a)
}

func removeStr(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// --- node -------------------------------------------------------------------

func applyNode(c *model.ServerConfig, st VnodeSource, req *Request, res *Result) error {
	old := st.Vnode(req.Name)
	var v *model.Vnode
	switch req.Verb {
	case Create:
		if old != nil {
			return perr(PBSENodeExists)
		}
		if !validName(req.Name) {
			return model.Errorf(model.PBSEBadAttrVal, " node name")
		}
		// Until its agent registers, a created node is down and of unknown
		// state, as in PBS.
		v = &model.Vnode{Name: req.Name, Host: req.Name, Mom: req.Name, State: model.NodeDown | model.NodeStateUnknown,
			Available: map[string]string{"vnode": req.Name, "host": req.Name}, Admin: map[string]string{}}
	case Delete:
		if old == nil {
			return model.Err(model.PBSEUnknownNode)
		}
		if old.State&(model.NodeProvisioning|model.NodeWaitProvisioning) != 0 {
			return perr(PBSENodeProvNoDel)
		}
		if len(old.Jobs) > 0 {
			return &model.PBSError{Code: PBSEObjBusy, Msg: "Request invalid for state of node: node has jobs"}
		}
		res.DeleteVnodes = []string{req.Name}
		return nil
	case Set, Unset:
		if old == nil {
			return model.Err(model.PBSEUnknownNode)
		}
		v = old.Copy()
		if v.Admin == nil {
			v.Admin = map[string]string{}
		}
	default:
		return badVerb(req)
	}
	for _, a := range req.Attrs {
		if req.Verb == Unset {
			a.Op, a.Value = "", ""
		}
		if err := setNodeAttr(v, c.Defs, req.ServerHost, a); err != nil {
			return err
		}
	}
	v.ApplyAdmin()
	v.DeriveCapacity(c.Defs)
	v.RecomputeBusy()
	res.Vnodes = []*model.Vnode{v}
	res.ResourcesChanged = true
	return nil
}

func provisioning(v *model.Vnode) bool {
	return v.State&(model.NodeProvisioning|model.NodeWaitProvisioning) != 0
}

func setNodeAttr(v *model.Vnode, defs model.ResourceDefs, serverHost string, a Attr) error {
	onServerHost := serverHost != "" && v.Mom == serverHost
	switch a.Name {
	case "state":
		if provisioning(v) {
			return perr(PBSENodeProv)
		}
		if a.Op == "" {
			v.State &^= model.NodeOffline
			return nil
		}
		for _, s := range splitList(a.Value) {
			switch {
			case s == "offline" && a.Op != "-=":
				v.State |= model.NodeOffline
			case s == "offline" && a.Op == "-=", s == "free" && a.Op == "=":
				v.State &^= model.NodeOffline
			default:
				return badValue(a)
			}
		}
		return nil
	case "comment":
		if a.Op == "" {
			delete(v.Admin, "comment")
			v.Comment = ""
			return nil
		}
		v.Admin["comment"] = a.Value
		return nil
	case "sort_priority", "priority":
		if a.Op == "" {
			delete(v.Admin, "sort_priority")
			v.Priority = 0
			return nil
		}
		n := int64(v.Priority)
		if err := setInt(&n, a, 0, -1024); err != nil || n > 1023 {
			return badValue(a)
		}
		v.Admin["sort_priority"] = strconv.FormatInt(n, 10)
		return nil
	case "provision_enable":
		if onServerHost {
			return perr(PBSEProvHeadError)
		}
		if a.Op == "" {
			delete(v.Admin, "provision_enable")
			v.ProvisionEnable = false
			return nil
		}
		b, err := model.ParseBool(a.Value)
		if err != nil || a.Op != "=" {
			return badValue(a)
		}
		v.Admin["provision_enable"] = model.FormatBool(b)
		return nil
	case "current_aoe":
		if onServerHost {
			return perr(PBSEProvHeadError)
		}
		if a.Op == "" {
			if v.State&model.NodeProvisioning != 0 {
				return perr(PBSENodeProvNoAct)
			}
			delete(v.Admin, "current_aoe")
			v.CurrentAOE = ""
			return nil
		}
		if provisioning(v) {
			return perr(PBSENodeProvNoAct)
		}
		if a.Op != "=" {
			return badValue(a)
		}
		if !containsStr(v.AOEs(), a.Value) {
			return perr(PBSENodeBadCurAOE)
		}
		v.Admin["current_aoe"] = a.Value
		return nil
	case "resources_available":
		if a.Resource == "aoe" {
			if onServerHost {
				return perr(PBSEProvHeadError)
			}
			if provisioning(v) && (a.Op != "" || v.State&model.NodeProvisioning != 0) {
				return perr(PBSENodeProvNoAct)
			}
		}
		if a.Resource == "host" || a.Resource == "vnode" {
			return model.Errorf(model.PBSEAttrRO, "%s", a.Key())
		}
		key := "resources_available." + a.Resource
		cur := map[string]string{}
		if val, ok := v.Available[a.Resource]; ok {
			cur[a.Resource] = val
		}
		if err := setResource(&cur, a, defs, false); err != nil {
			return err
		}
		if val, ok := cur[a.Resource]; ok {
			v.Admin[key] = val
			v.Available[a.Resource] = val
		} else {
			delete(v.Admin, key)
			delete(v.Available, a.Resource)
		}
		return nil
	}
	return noAttr(a)
}
