package model

// QueueConfig is a queue's configuration. The TOML file may seed the basic
// keys; everything here is settable with qmgr afterwards.
type QueueConfig struct {
	Name     string `json:"name" toml:"name"`
	Type     string `json:"queue_type" toml:"queue_type"` // "execution" (routing queues come later)
	Priority int    `json:"priority" toml:"priority"`
	Enabled  bool   `json:"enabled" toml:"enabled"`
	Started  bool   `json:"started" toml:"started"`
	// BackfillDepth is the queue's backfill_depth; nil (unset) counts the
	// queue's top jobs against the server's.
	BackfillDepth *int `json:"backfill_depth,omitempty" toml:"backfill_depth"`

	ResourcesMax     map[string]string `json:"resources_max,omitempty" toml:"resources_max"`
	ResourcesMin     map[string]string `json:"resources_min,omitempty" toml:"resources_min"`
	ResourcesDefault map[string]string `json:"resources_default,omitempty" toml:"resources_default"`
	DefaultChunk     map[string]string `json:"default_chunk,omitempty" toml:"default_chunk"`
	// MaxRun and MaxQueued are PBS limit lists ("[o:PBS_ALL=10],[u:PBS_GENERIC=2]").
	MaxRun    string `json:"max_run,omitempty" toml:"max_run"`
	MaxQueued string `json:"max_queued,omitempty" toml:"max_queued"`
	// MaxRunSoft is max_run_soft: over it a job is preemptible
	// (preempt_prio queue_softlimits), never held back.
	MaxRunSoft     string   `json:"max_run_soft,omitempty" toml:"max_run_soft"`
	ACLUserEnable  bool     `json:"acl_user_enable,omitempty" toml:"acl_user_enable"`
	ACLUsers       []string `json:"acl_users,omitempty" toml:"acl_users"`
	ACLGroupEnable bool     `json:"acl_group_enable,omitempty" toml:"acl_group_enable"`
	ACLGroups      []string `json:"acl_groups,omitempty" toml:"acl_groups"`
	// NodeGroupKey is the queue's node_group_key: it replaces the
	// server's for the queue's jobs when node_group_enable is on.
	NodeGroupKey []string `json:"node_group_key,omitempty" toml:"node_group_key"`
	// ACLHostEnable and ACLHosts are the queue's acl_host_enable and
	// acl_hosts (a reservation's -H; docs/reservations.md).
	ACLHostEnable bool     `json:"acl_host_enable,omitempty" toml:"acl_host_enable"`
	ACLHosts      []string `json:"acl_hosts,omitempty" toml:"acl_hosts"`
}

// Copy returns a copy whose maps and slices may be changed.
func (q QueueConfig) Copy() QueueConfig {
	q.ResourcesMax = copyStringMap(q.ResourcesMax)
	q.ResourcesMin = copyStringMap(q.ResourcesMin)
	q.ResourcesDefault = copyStringMap(q.ResourcesDefault)
	q.DefaultChunk = copyStringMap(q.DefaultChunk)
	q.ACLUsers = append([]string(nil), q.ACLUsers...)
	q.ACLGroups = append([]string(nil), q.ACLGroups...)
	q.NodeGroupKey = append([]string(nil), q.NodeGroupKey...)
	q.ACLHosts = append([]string(nil), q.ACLHosts...)
	return q
}

// SchedConfig holds what OpenPBS keeps in sched_priv/sched_config; in
// Strata it is the replicated "sched" object of qmgr. node_sort_key lives in
// ServerConfig.NodeSortKeys (it predates the sched object).
type SchedConfig struct {
	// ProvisionPolicy is "aggressive_provision" (default) or "avoid_provision".
	ProvisionPolicy string   `json:"provision_policy,omitempty"`
	JobSortKeys     []string `json:"job_sort_key,omitempty"`
	ByQueue         bool     `json:"by_queue"`
	StrictOrdering  bool     `json:"strict_ordering,omitempty"`
	// BackfillDepth is how many top jobs get a reservation in the calendar.
	BackfillDepth int64 `json:"backfill_depth"`
	// MinIntervalMs coalesces scheduling triggers (0: the file's
	// scheduler_min_interval).
	MinIntervalMs int64 `json:"sched_min_interval_ms,omitempty"`
	// RoundRobin takes one job from each queue of a priority level in turn.
	RoundRobin bool `json:"round_robin,omitempty"`
	// JobSortFormula orders jobs before job_sort_key; jobs at or under
	// JobSortFormulaThreshold do not run (docs/scheduling.md).
	JobSortFormula          string   `json:"job_sort_formula,omitempty"`
	JobSortFormulaThreshold *float64 `json:"job_sort_formula_threshold,omitempty"`
	// Preempt is preemptive_sched and the preempt_* settings (model/preempt.go).
	Preempt PreemptConfig `json:"preempt"`
	// DoNotSpanPsets and OnlyExplicitPsets are do_not_span_psets and
	// only_explicit_psets (placement sets, docs/scheduling.md).
	DoNotSpanPsets    bool `json:"do_not_span_psets,omitempty"`
	OnlyExplicitPsets bool `json:"only_explicit_psets,omitempty"`
	// Fairshare is the share tree and its settings (model/fairshare.go);
	// nil when none were ever set.
	Fairshare *FairshareConfig `json:"fairshare,omitempty"`
}

// ServerConfig is the server's replicated configuration: everything a new
// leader needs to behave exactly like the old one. Durations are seconds.
// The TOML file seeds it when the cluster is first configured; afterwards
// qmgr (the manager package) owns it.
type ServerConfig struct {
	Name               string                 `json:"server_name"`
	Defs               ResourceDefs           `json:"resources"`
	DefaultQueue       string                 `json:"default_queue"`
	Queues             map[string]QueueConfig `json:"queues"`
	JobHistoryEnable   bool                   `json:"job_history_enable"`
	JobHistoryDuration int64                  `json:"job_history_duration"`
	QueryOtherJobs     bool                   `json:"query_other_jobs"`
	Managers           []string               `json:"managers"`
	Operators          []string               `json:"operators"`
	// AllowRoot lets root submit jobs (PBS's acl_roots); the local test
	// cluster turns it on.
	AllowRoot bool `json:"allow_root_jobs"`
	// NodeFailRequeue is how long a job's mother superior may be down before
	// the job is requeued (rerunnable) or failed; 0 leaves it running.
	NodeFailRequeue  int64             `json:"node_fail_requeue"`
	DefaultChunk     map[string]string `json:"default_chunk"`
	ResourcesDefault map[string]string `json:"resources_default"`
	MaxJobSequenceID int64             `json:"max_job_sequence_id"`
	Scheduling       bool              `json:"scheduling"`
	NodeSortKeys     []string          `json:"node_sort_key"`
	Comment          string            `json:"comment,omitempty"`
	// DefaultQsubArguments is default_qsub_arguments: qsub options applied
	// below directives and the command line.
	DefaultQsubArguments string `json:"default_qsub_arguments,omitempty"`
	// MailFrom is mail_from (default "adm"), the sender of job and
	// reservation mail; MailProgram is mail_program, the sendmail-like
	// program it is piped to (default /usr/sbin/sendmail when it exists;
	// server/mail.go).
	MailFrom    string `json:"mail_from,omitempty"`
	MailProgram string `json:"mail_program,omitempty"`

	// SchedulerIteration is the periodic cycle in seconds (0: the file's).
	SchedulerIteration int64 `json:"scheduler_iteration,omitempty"`
	// LogEvents is log_events, the mask of event classes the event log
	// keeps (model.Log*); nil means DefaultLogEvents.
	LogEvents *int64 `json:"log_events,omitempty"`
	// MaxRun and MaxQueued are PBS limit lists, as on queues.
	MaxRun       string `json:"max_run,omitempty"`
	MaxQueued    string `json:"max_queued,omitempty"`
	MaxRunSoft   string `json:"max_run_soft,omitempty"` // server_softlimits (model/preempt.go)
	MaxArraySize int64  `json:"max_array_size,omitempty"`
	// MaxConcurrentProvision bounds vnodes provisioned at once (default 5).
	MaxConcurrentProvision int64    `json:"max_concurrent_provision,omitempty"`
	FlatUID                bool     `json:"flatuid,omitempty"`
	ACLHostEnable          bool     `json:"acl_host_enable,omitempty"`
	ACLHosts               []string `json:"acl_hosts,omitempty"`
	ACLUserEnable          bool     `json:"acl_user_enable,omitempty"`
	ACLUsers               []string `json:"acl_users,omitempty"`
	ACLRoots               []string `json:"acl_roots,omitempty"`

	// NodeGroupEnable and NodeGroupKey are node_group_enable and
	// node_group_key: placement sets (docs/scheduling.md).
	NodeGroupEnable bool     `json:"node_group_enable,omitempty"`
	NodeGroupKey    []string `json:"node_group_key,omitempty"`

	Sched SchedConfig `json:"sched"`
	// Hooks are the site hooks by name. HookVersion moves whenever a hook
	// that agents run changes, so agents know when to fetch them again.
	Hooks       map[string]Hook `json:"hooks,omitempty"`
	HookVersion uint64          `json:"hook_version,omitempty"`
}

// Copy returns a copy whose maps and slices may be changed without touching
// c (the stored configuration is shared with readers).
func (c ServerConfig) Copy() ServerConfig {
	c.Defs = c.Defs.With()
	qs := make(map[string]QueueConfig, len(c.Queues))
	for k, q := range c.Queues {
		qs[k] = q.Copy()
	}
	c.Queues = qs
	c.Managers = append([]string(nil), c.Managers...)
	c.Operators = append([]string(nil), c.Operators...)
	c.DefaultChunk = copyStringMap(c.DefaultChunk)
	c.ResourcesDefault = copyStringMap(c.ResourcesDefault)
	c.NodeSortKeys = append([]string(nil), c.NodeSortKeys...)
	c.ACLHosts = append([]string(nil), c.ACLHosts...)
	c.ACLUsers = append([]string(nil), c.ACLUsers...)
	c.ACLRoots = append([]string(nil), c.ACLRoots...)
	c.NodeGroupKey = append([]string(nil), c.NodeGroupKey...)
	c.Sched.JobSortKeys = append([]string(nil), c.Sched.JobSortKeys...)
	c.Sched.Fairshare = c.Sched.Fairshare.Copy()
	hs := make(map[string]Hook, len(c.Hooks))
	for k, h := range c.Hooks {
		h.Events = append([]string(nil), h.Events...)
		hs[k] = h
	}
	c.Hooks = hs
	return c
}

// RootMaySubmit reports whether root may submit jobs (acl_roots names root,
// or the file's allow_root_jobs).
func (c *ServerConfig) RootMaySubmit() bool {
	if c.AllowRoot {
		return true
	}
	for _, r := range c.ACLRoots {
		if name, _, _ := cutAt(r); name == "root" {
			return true
		}
	}
	return false
}

// ProvisionConcurrency is max_concurrent_provision with its PBS default.
func (c *ServerConfig) ProvisionConcurrency() int64 {
	if c.MaxConcurrentProvision <= 0 {
		return 5
	}
	return c.MaxConcurrentProvision
}

func cutAt(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// LogEventMask is log_events, or its default when unset.
func (c *ServerConfig) LogEventMask() int {
	if c.LogEvents == nil {
		return DefaultLogEvents
	}
	return int(*c.LogEvents)
}
