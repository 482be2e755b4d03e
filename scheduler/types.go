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
	// Running are the jobs that hold vnodes (R, S, E), for the calendar.
	Running []*model.Job
	Queues  map[string]Queue
	Config  Config
}

// Queue is what the scheduler needs to know about a queue.
type Queue struct {
	Name     string
	Priority int
}

// Config is the scheduling policy (sched attributes in qmgr terms).
type Config struct {
	// NodeSortKeys orders vnodes; empty means "sort_priority HIGH".
	NodeSortKeys []policy.NodeSortKey
	// ByQueue walks queues in descending priority before job order.
	ByQueue bool
}

// Decision runs one job on the given chunks.
type Decision struct {
	JobID string
	// Exec lists one ExecChunk per chunk copy, in select order. Under
	// place=exclhost the other vnodes of each host the job touches are added,
	// with no amounts, as extra shares of the job's first chunk on that host,
	// so that every vnode the job holds appears in Exec.
	Exec []model.ExecChunk
	// Exclusive is set when the job holds every vnode of Exec exclusively
	// (place=excl or exclhost): the server records it in Vnode.ExclusiveJob.
	Exclusive bool
}

// JobComment sets a job's comment. NeverRun marks the job as impossible to
// run with the current vnodes (the server records the snapshot's Epoch).
type JobComment struct {
	JobID    string
	Comment  string
	NeverRun bool
}

// Plan is the outcome of one cycle; the server commits it as one Raft entry.
type Plan struct {
	Runs     []Decision
	Comments []JobComment
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Runs) == 0 && len(p.Comments) == 0 }
