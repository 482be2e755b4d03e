package model

// QueueConfig is a queue's configuration.
type QueueConfig struct {
	Name     string `json:"name" toml:"name"`
	Type     string `json:"queue_type" toml:"queue_type"` // "execution" (routing queues come later)
	Priority int    `json:"priority" toml:"priority"`
	Enabled  bool   `json:"enabled" toml:"enabled"`
	Started  bool   `json:"started" toml:"started"`
	// BackfillDepth is the queue's backfill_depth; nil (unset) counts the
	// queue's top jobs against the server's.
	BackfillDepth *int `json:"backfill_depth,omitempty" toml:"backfill_depth"`
}

// ServerConfig is the server's replicated configuration: everything a new
// leader needs to behave exactly like the old one. Durations are seconds.
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

	// Job order and strict ordering (docs/scheduling.md).
	ByQueue                 bool     `json:"by_queue,omitempty"`
	RoundRobin              bool     `json:"round_robin,omitempty"`
	JobSortKeys             []string `json:"job_sort_key,omitempty"`
	JobSortFormula          string   `json:"job_sort_formula,omitempty"`
	JobSortFormulaThreshold *float64 `json:"job_sort_formula_threshold,omitempty"`
	StrictOrdering          bool     `json:"strict_ordering,omitempty"`
	BackfillDepth           int      `json:"backfill_depth,omitempty"`
}
