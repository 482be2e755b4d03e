package manager

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Described objects are model's wire types (model/manage.go).
type (
	Item   = model.ConfigItem
	Object = model.ConfigObject
)

type items []Item

func (it *items) add(name string, values ...string) {
	if len(values) == 0 || (len(values) == 1 && values[0] == "") {
		return
	}
	*it = append(*it, Item{Name: name, Values: values})
}

func (it *items) ro(name string, value string) {
	if value == "" {
		return
	}
	*it = append(*it, Item{Name: name, Values: []string{value}, ReadOnly: true})
}

func (it *items) res(prefix string, m map[string]string) {
	for _, k := range model.SortedKeys(m) {
		it.add(prefix+"."+k, m[k])
	}
}

func itoa(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func limitValues(s string) []string {
	if s == "" {
		return nil
	}
	ls, err := model.ParseLimits(s)
	if err != nil {
		return []string{s}
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = model.FormatLimits([]model.Limit{l})
	}
	return out
}

// DescribeServer lists the server's settable attributes in print order.
func DescribeServer(c *model.ServerConfig) Object {
	var it items
	it.add("scheduling", model.FormatBool(c.Scheduling))
	it.add("managers", c.Managers...)
	it.add("operators", c.Operators...)
	it.add("default_queue", c.DefaultQueue)
	it.add("acl_host_enable", boolIf(c.ACLHostEnable))
	it.add("acl_hosts", c.ACLHosts...)
	it.add("acl_user_enable", boolIf(c.ACLUserEnable))
	it.add("acl_users", c.ACLUsers...)
	it.add("acl_roots", c.ACLRoots...)
	it.add("comment", c.Comment)
	it.add("default_qsub_arguments", c.DefaultQsubArguments)
	it.res("resources_default", c.ResourcesDefault)
	it.res("default_chunk", c.DefaultChunk)
	it.add("max_run", limitValues(c.MaxRun)...)
	it.add("max_queued", limitValues(c.MaxQueued)...)
	it.add("max_run_soft", limitValues(c.MaxRunSoft)...)
	it.add("max_array_size", itoa(c.MaxArraySize))
	it.add("max_concurrent_provision", itoa(c.MaxConcurrentProvision))
	it.add("max_job_sequence_id", itoa(c.MaxJobSequenceID))
	it.add("scheduler_iteration", itoa(c.SchedulerIteration))
	it.add("log_events", strconv.Itoa(c.LogEventMask()))
	it.add("flatuid", boolIf(c.FlatUID))
	it.add("query_other_jobs", model.FormatBool(c.QueryOtherJobs))
	it.add("mail_from", c.MailFrom)
	it.add("mail_program", c.MailProgram)
	it.add("job_history_enable", model.FormatBool(c.JobHistoryEnable))
	if c.JobHistoryDuration > 0 {
		it.add("job_history_duration", model.FormatDuration(c.JobHistoryDuration))
	}
	it.add("node_fail_requeue", strconv.FormatInt(c.NodeFailRequeue, 10))
	it.add("node_group_enable", boolIf(c.NodeGroupEnable))
	it.add("node_group_key", c.NodeGroupKey...)
	return Object{Type: "Server", Name: c.Name, Items: it}
}

// boolIf prints a flag only when it is on (off is the default).
func boolIf(b bool) string {
	if b {
		return "True"
	}
	return ""
}

// DescribeQueue lists a queue's settable attributes.
func DescribeQueue(q *model.QueueConfig) Object {
	var it items
	it.add("queue_type", "Execution")
	it.add("priority", itoa(int64(q.Priority)))
	it.add("acl_user_enable", boolIf(q.ACLUserEnable))
	it.add("acl_users", q.ACLUsers...)
	it.add("acl_group_enable", boolIf(q.ACLGroupEnable))
	it.add("acl_groups", q.ACLGroups...)
	it.add("acl_host_enable", boolIf(q.ACLHostEnable))
	it.add("acl_hosts", q.ACLHosts...)
	it.add("max_run", limitValues(q.MaxRun)...)
	it.add("max_queued", limitValues(q.MaxQueued)...)
	it.add("max_run_soft", limitValues(q.MaxRunSoft)...)
	it.res("resources_max", q.ResourcesMax)
	it.res("resources_min", q.ResourcesMin)
	it.res("resources_default", q.ResourcesDefault)
	it.res("default_chunk", q.DefaultChunk)
	if q.BackfillDepth != nil {
		it.add("backfill_depth", strconv.Itoa(*q.BackfillDepth))
	}
	it.add("node_group_key", q.NodeGroupKey...)
	it.add("enabled", model.FormatBool(q.Enabled))
	it.add("started", model.FormatBool(q.Started))
	return Object{Type: "Queue", Name: q.Name, Items: it}
}

// DescribeSched lists the sched object.
func DescribeSched(c *model.ServerConfig) Object {
	var it items
	s := &c.Sched
	it.add("provision_policy", s.ProvisionPolicy)
	it.add("node_sort_key", c.NodeSortKeys...)
	it.add("job_sort_key", s.JobSortKeys...)
	it.add("by_queue", model.FormatBool(s.ByQueue))
	if s.RoundRobin {
		it.add("round_robin", model.FormatBool(s.RoundRobin))
	}
	if s.JobSortFormula != "" {
		it.add("job_sort_formula", s.JobSortFormula)
	}
	if s.JobSortFormulaThreshold != nil {
		it.add("job_sort_formula_threshold", strconv.FormatFloat(*s.JobSortFormulaThreshold, 'f', -1, 64))
	}
	it.add("strict_ordering", model.FormatBool(s.StrictOrdering))
	it.add("backfill_depth", strconv.FormatInt(s.BackfillDepth, 10))
	it.add("do_not_span_psets", boolIf(s.DoNotSpanPsets))
	it.add("only_explicit_psets", boolIf(s.OnlyExplicitPsets))
	if s.MinIntervalMs > 0 {
		it.add("sched_min_interval", FormatMillis(s.MinIntervalMs))
	}
	describePreempt(&it, s)
	describeFairshare(&it, s.Fairshare) // fairshare.go
	return Object{Type: "Sched", Name: "default", Items: it}
}

// DescribeResource lists a custom resource.
func DescribeResource(d model.ResourceDef) Object {
	var it items
	it.add("type", string(d.Type))
	it.add("flag", d.Flags)
	return Object{Type: "Resource", Name: d.Name, Items: it}
}

// CustomResources returns the non-builtin resources, by name.
func CustomResources(defs model.ResourceDefs) []model.ResourceDef {
	builtin := model.BuiltinResources()
	var out []model.ResourceDef
	for _, name := range model.SortedKeys(defs) {
		if _, ok := builtin[name]; !ok {
			out = append(out, defs[name])
		}
	}
	return out
}

// DescribeHook lists a hook (booleans in lower case, as PBS prints them).
func DescribeHook(h *model.Hook, withContent bool) Object {
	var it items
	it.add("type", "site")
	it.add("enabled", strconv.FormatBool(h.Enabled))
	if len(h.Events) > 0 {
		it.add("event", h.Events...)
	} else {
		it.add("event", `""`)
	}
	it.add("user", h.User)
	it.add("alarm", strconv.Itoa(h.Alarm))
	it.add("order", strconv.Itoa(h.Order))
	it.add("debug", strconv.FormatBool(h.Debug))
	it.add("fail_action", h.FailAction)
	if h.HasEvent("periodic") || h.HasEvent("exechost_periodic") {
		it.add("freq", strconv.Itoa(h.Freq))
	}
	if h.HasEvent("provision") || h.ProvisionMode != "" {
		mode := h.ProvisionMode
		if mode == "" {
			mode = model.ProvModeAgent
		}
		it.add("provision_mode", mode)
	}
	o := Object{Type: "Hook", Name: h.Name, Items: it}
	if withContent {
		o.ContentType, o.Script, o.Config = h.ContentType, h.Script, h.Config
	}
	return o
}

// DescribeNode lists a vnode. Manager-set attributes are settable (print
// replays them); what the agent reports is read-only.
func DescribeNode(v *model.Vnode) Object {
	var it items
	it.ro("Mom", v.Mom)
	if v.Port != 0 {
		it.ro("Port", strconv.Itoa(v.Port))
	}
	it.ro("ntype", "PBS")
	state := Item{Name: "state", Values: []string{v.State.String()}, ReadOnly: v.State&model.NodeOffline == 0}
	if !state.ReadOnly {
		state.PrintValues = []string{"offline"}
	}
	it = append(it, state)
	it.ro("pcpus", itoa(int64(v.Pcpus)))
	for _, k := range model.SortedKeys(v.Available) {
		key := "resources_available." + k
		if _, admin := v.Admin[key]; admin {
			it.add(key, v.Available[k])
		} else {
			it.ro(key, v.Available[k])
		}
	}
	for _, k := range []string{"comment", "sort_priority", "provision_enable", "current_aoe"} {
		val, admin := v.Admin[k]
		if admin {
			it.add(k, val)
			continue
		}
		switch k {
		case "comment":
			it.ro(k, v.Comment)
		case "sort_priority":
			it.ro(k, itoa(int64(v.Priority)))
		case "provision_enable":
			if v.ProvisionEnable {
				it.ro(k, "True")
			}
		case "current_aoe":
			it.ro(k, v.CurrentAOE)
		}
	}
	if jobs := v.JobSlots(); len(jobs) > 0 {
		it.ro("jobs", strings.Join(jobs, ", "))
	}
	return Object{Type: "Node", Name: v.Name, Items: it}
}
