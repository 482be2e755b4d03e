package model

// Preemption (docs/scheduling.md, "Preemption"): the scheduler decides, the
// FSM applies, the agent acts on the job's processes.

// Preemption methods, the letters of the sched attribute preempt_order.
const (
	PreemptSuspend    = "S" // SIGSTOP the job; it stays on its vnodes (S, substate 45)
	PreemptCheckpoint = "C" // the site checkpoint script, then kill and requeue
	PreemptRequeue    = "R" // kill and requeue (Q)
	PreemptDelete     = "D" // kill and delete (F)
)

// SubSchedSuspended is PBS's substate 45: suspended by the scheduler to
// preempt it (43 is a qsig suspend). Only such jobs are resumed by the
// scheduler.
const SubSchedSuspended = 45

// SigCheckpoint is the signal request the FSM adds to a job preempted by
// checkpoint: the agent runs its checkpoint script, then kills the job,
// which is requeued when its end is reported (Job.RequeueOnEnd).
const SigCheckpoint = "checkpoint"

// AcctSuspend, AcctResume and AcctCheckpoint are OpenPBS's accounting
// records "z" (suspended), "r" (resumed) and "C" (checkpointed).
const (
	AcctSuspend    = "z"
	AcctResume     = "r"
	AcctCheckpoint = "C"
)

// Preemption is one victim of a scheduling cycle: the job to preempt, how,
// and the job it makes room for (for the comment and tracejob).
type Preemption struct {
	JobID  string `json:"job_id"`
	Method string `json:"method"`
	By     string `json:"by"`
}

// PreemptComment is the comment a preempted job gets, in OpenPBS's words.
func PreemptComment(method string) string {
	switch method {
	case PreemptSuspend:
		return "Job preempted by suspension"
	case PreemptCheckpoint:
		return "Job preempted by checkpointing"
	case PreemptRequeue:
		return "Job preempted by requeuing"
	case PreemptDelete:
		return "Job preempted by deletion"
	}
	return "Job preempted"
}

// Defaults of the preemption settings (OpenPBS's).
const (
	DefaultPreemptQueuePrio = 150
	DefaultPreemptPrio      = "express_queue, normal_jobs"
	DefaultPreemptOrder     = "SCR"
	DefaultPreemptSort      = "min_time_since_start"
	DefaultMaxStarve        = 24 * 3600
)

// PreemptConfig is the preemption part of the sched object. Zero values
// mean OpenPBS's defaults (the Effective methods), so a configuration
// written before preemption existed behaves as PBS out of the box.
type PreemptConfig struct {
	// Off is preemptive_sched = False (PBS's default is True).
	Off       bool   `json:"preemptive_sched_off,omitempty"`
	QueuePrio *int64 `json:"preempt_queue_prio,omitempty"`
	Prio      string `json:"preempt_prio,omitempty"`
	Order     string `json:"preempt_order,omitempty"`
	Sort      string `json:"preempt_sort,omitempty"`
	// MaxStarve (seconds) is how long a queued job waits before it counts
	// as starving for preempt_prio's starving_jobs.
	MaxStarve int64 `json:"max_starve,omitempty"`
}

// EffectiveQueuePrio is preempt_queue_prio or its default.
func (p *PreemptConfig) EffectiveQueuePrio() int64 {
	if p.QueuePrio != nil {
		return *p.QueuePrio
	}
	return DefaultPreemptQueuePrio
}

// EffectivePrio is preempt_prio or its default.
func (p *PreemptConfig) EffectivePrio() string { return orDefault(p.Prio, DefaultPreemptPrio) }

// EffectiveOrder is preempt_order or its default.
func (p *PreemptConfig) EffectiveOrder() string { return orDefault(p.Order, DefaultPreemptOrder) }

// EffectiveSort is preempt_sort or its default.
func (p *PreemptConfig) EffectiveSort() string { return orDefault(p.Sort, DefaultPreemptSort) }

// EffectiveMaxStarve is max_starve in seconds or its default.
func (p *PreemptConfig) EffectiveMaxStarve() int64 {
	if p.MaxStarve > 0 {
		return p.MaxStarve
	}
	return DefaultMaxStarve
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// ExitPreemptDeleted is the exit status of a job preempted by deletion
// (the status a forced qdel gives, 256 + SIGTERM).
const ExitPreemptDeleted = 271
