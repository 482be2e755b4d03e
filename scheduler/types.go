package scheduler

import (
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// Snapshot is the consistent view of the cluster that one scheduling cycle
// decides over. The server builds it from a read-only state-store snapshot:
// the slices hold pointers to the stored objects, which the scheduler must
// never modify (it keeps its own per-cycle overlay of assigned resources).
type Snapshot struct {
	// Now is the leader's clock at the start of the cycle (Unix seconds);
	// the scheduler reads no clock of its own.
	Now int64
	// Epoch changes whenever vnodes or resource definitions change. Jobs
	// found unable to ever run are marked with the epoch and skipped until
	// it moves.
	Epoch uint64
	Defs  model.ResourceDefs
	// Vnodes are all vnodes in any state, in server order (the final
	// tie-break of node_sort_key).
	Vnodes []*model.Vnode
	// Queued are the jobs in state Q of started execution queues.
	Queued []*model.Job
	// QueuedRanked says Queued is already in JobOrder(s) order (the
	// server admits candidates in that order for max_run), so the cycle
	// does not sort a long queue a second time. It is ignored with
	// round_robin, whose interleaving depends on which jobs are present.
	QueuedRanked bool
	// Running are the jobs that hold vnodes (R, S, E), for the calendar.
	Running []*model.Job
	Queues  map[string]Queue
	Config  Config
	// Provision is the provisioning policy and estimates (aoe.go).
	Provision ProvisionInfo
	// Reservations are the unconfirmed, confirmed and running
	// reservations (resv.go), in submission order.
	Reservations []*model.Reservation
	// Withheld are comments for queued jobs the server kept out of
	// Queued (max_run limits: server/schedglue), only where the comment
	// changes. Schedule carries them into the plan so that one cycle
	// commits every comment.
	Withheld []model.JobComment
	// PreemptClasses are preemption classes the server computed for jobs
	// (soft limits, fairshare; by job id), or'ed with those the scheduler
	// derives itself (preempt.go).
	PreemptClasses map[string]policy.PreemptClass
}

// Queue is what the scheduler needs to know about a queue.
type Queue struct {
	Name     string
	Priority int
	// BackfillDepth is the queue's backfill_depth; nil means unset: the
	// queue's jobs count against the server's Config.BackfillDepth.
	BackfillDepth *int
	// DefaultWalltime (seconds) is the queue's resources_default.walltime;
	// 0 falls back to Config.DefaultWalltime.
	DefaultWalltime int64
	// NodeGroupKey is the queue's node_group_key (psets.go).
	NodeGroupKey []string
}

// Config is the scheduling policy (sched attributes in qmgr terms).
type Config struct {
	// NodeSortKeys orders vnodes; empty means "sort_priority HIGH".
	NodeSortKeys []policy.NodeSortKey
	// ByQueue walks queues in descending priority before job order.
	ByQueue bool
	// RoundRobin takes one job from each queue of a priority level in turn.
	RoundRobin bool
	// JobSortKeys (job_sort_key) and JobSortFormula (job_sort_formula)
	// order jobs; see policy.JobOrder for the full order.
	JobSortKeys    []policy.JobSortKey
	JobSortFormula *policy.Formula
	// FormulaThreshold (job_sort_formula_threshold), when set with a
	// formula, keeps jobs whose formula value is at or below it from
	// running this cycle.
	FormulaThreshold *float64
	// Fairshare is the share tree with usage (policy/fairshare.go): the
	// formula's fairshare variables and, with fair_share, the order of
	// entities right after the formula. nil without fairshare.
	Fairshare *policy.Fairshare

	// StrictOrdering (strict_ordering) makes a job that cannot run block
	// the jobs after it: with BackfillDepth 0 nothing after it starts;
	// otherwise the first BackfillDepth blocked jobs become top jobs with a
	// planned start and vnodes, and later jobs start only if they delay no
	// top job. OpenPBS's default for an unset backfill_depth is 1; the
	// server passes that in.
	StrictOrdering bool
	BackfillDepth  int

	// DefaultWalltime (seconds) is the walltime the calendar assumes for
	// jobs that have none: the server's resources_default.walltime (a
	// queue's overrides it). When it is 0 too, such a job's end is
	// unknown: running, it holds its resources for ever in the calendar
	// (top jobs needing them get no estimate); queued, it may start now
	// only where no future hold exists. Never a silent 5 years.
	DefaultWalltime int64

	// Preempt is the preemption policy; nil when preemptive_sched is off.
	Preempt *PreemptPolicy
	// Psets is the placement-set policy (psets.go).
	Psets PsetConfig
}

// Plan is the outcome of one cycle; the server commits it as one Raft entry.
type Plan struct {
	Runs      []model.RunDecision
	Comments  []model.JobComment
	Estimates []model.JobEstimate
	// Resvs confirm or deny unconfirmed reservations (resv.go).
	Resvs []model.ResvDecision
	// Preempts are the running jobs to preempt before the runs apply, and
	// Resumes the scheduler-suspended jobs to resume (preempt_cycle.go).
	Preempts []model.Preemption
	Resumes  []string
	// SoftWalltimes extend running jobs' soft walltimes (softwall.go).
	SoftWalltimes []model.SoftWalltime
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool {
	return len(p.Runs) == 0 && len(p.Comments) == 0 && len(p.Estimates) == 0 && len(p.Resvs) == 0 && len(p.SoftWalltimes) == 0 &&
		len(p.Preempts) == 0 && len(p.Resumes) == 0
}
