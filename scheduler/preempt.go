package scheduler

import (
	"cmp"
	"slices"
	"strings"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// Preemption, the pure part: which running jobs a job that cannot run may
// displace, in what order they are tried, and by which method. The cycle's
// side (freeing a victim's resources in the overlay and placing again)
// is preempt_cycle.go.

// PreemptPolicy is preemptive_sched with its settings; Config.Preempt is
// nil when preemption is off.
type PreemptPolicy struct {
	Prio  policy.PreemptPrio
	Order []policy.PreemptStep
	// QueuePrio is preempt_queue_prio: queues at or above it are express.
	QueuePrio int
	// MaxStarve (seconds): a queued job eligible for longer is starving.
	MaxStarve int64
}

// victim is a running job considered for preemption.
type victim struct {
	job    *model.Job
	level  int    // its preemption priority
	method string // how it would be preempted (model.Preempt*)
	// cost is the seconds of reimaging the preemptor would pay on the
	// victim's vnodes (its AOE is not there yet): Strata prefers victims
	// whose vnodes already run what the preemptor needs.
	cost  int64
	start int64 // Stime, for min_time_since_start
	// pending marks a job whose preemption (checkpoint) is already under
	// way: its resources are as good as free and nothing new is asked.
	pending bool
}

// rankVictims orders victims as they are tried: those already going first
// (they cost nothing), then lowest preemption priority, then the cheapest
// to reimage for the preemptor's AOE, then (preempt_sort
// min_time_since_start) the most recently started, which loses the least
// work; the later submission, then the job id, so that the order is
// total.
func rankVictims(vs []victim) {
	// The order is total (the job id last), so an unstable sort gives the
	// one result.
	slices.SortFunc(vs, func(a, b victim) int {
		if a.pending != b.pending {
			if a.pending {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.level, b.level); c != 0 {
			return c
		}
		if c := cmp.Compare(a.cost, b.cost); c != 0 {
			return c
		}
		if c := cmp.Compare(b.start, a.start); c != 0 {
			return c
		}
		if c := cmp.Compare(b.job.Seq, a.job.Seq); c != 0 {
			return c // started together: the later submission goes first
		}
		return strings.Compare(a.job.ID, b.job.ID)
	})
}

// chooseVictims finds the shortest prefix of the ranked victims whose
// freeing lets the preemptor be placed (fits), then gives back, last
// chosen first, every victim of it the placement does not need (a victim
// freed early may be made useless by later ones, e.g. on another host).
// free and unfree change the world fits looks at; on failure everything is
// given back. It returns the indexes of the victims kept, in rank order.
//
// Room only grows as victims are freed, so the prefix is found by
// bisection: a job that cannot fit even with every victim gone costs two
// passes and one placement attempt, not one attempt per victim.
func chooseVictims(n int, free, unfree func(i int), fits func() bool) ([]int, bool) {
	if n == 0 {
		return nil, false
	}
	freed := 0 // victims [0, freed) are freed
	setPrefix := func(k int) {
		for ; freed < k; freed++ {
			free(freed)
		}
		for ; freed > k; freed-- {
			unfree(freed - 1)
		}
	}
	setPrefix(n)
	if !fits() {
		setPrefix(0)
		return nil, false
	}
	lo, hi := 1, n // the shortest fitting prefix is in [lo, hi]; hi fits
	for lo < hi {
		mid := (lo + hi) / 2
		setPrefix(mid)
		if fits() {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	setPrefix(hi)
	// The last one is needed (the prefix before it does not fit); try
	// dropping the others.
	keep := make([]bool, hi)
	keep[hi-1] = true
	for k := hi - 2; k >= 0; k-- {
		unfree(k)
		if fits() {
			continue
		}
		free(k)
		keep[k] = true
	}
	var out []int
	for k := range keep {
		if keep[k] {
			out = append(out, k)
		}
	}
	return out, true
}

// preemptMethod is the first method of preempt_order (for the part of its
// walltime the job has left) that applies to j: suspend needs a running
// job and is ruled out when the preemptor will reimage the job's host
// (noSuspend: a stopped process does not survive a reboot); checkpoint
// and requeue need a rerunnable job, checkpoint one whose Checkpoint
// attribute is not "n"; delete always applies. "" when none does.
func preemptMethod(steps []policy.PreemptStep, j *model.Job, walltime, now int64, noSuspend bool) string {
	remain := 100.0
	if walltime > 0 && j.Stime > 0 {
		remain = float64(walltime-(now-j.Stime)) * 100 / float64(walltime)
	}
	for _, m := range policy.PreemptMethods(steps, remain) {
		switch string(m) {
		case model.PreemptSuspend:
			if !noSuspend {
				return model.PreemptSuspend
			}
		case model.PreemptCheckpoint:
			if j.Rerun && j.Checkpt != "n" {
				return model.PreemptCheckpoint
			}
		case model.PreemptRequeue:
			if j.Rerun {
				return model.PreemptRequeue
			}
		case model.PreemptDelete:
			return model.PreemptDelete
		}
	}
	return ""
}

// preemptClasses is the set of preemption classes of j: express from its
// queue's priority, starving from how long a queued job has been
// eligible, and what the server computed (soft limits, fairshare) in
// Snapshot.PreemptClasses.
func preemptClasses(s *Snapshot, p *PreemptPolicy, j *model.Job) policy.PreemptClass {
	set := s.PreemptClasses[j.ID]
	if s.Queues[j.Queue].Priority >= p.QueuePrio {
		set |= policy.BitExpress
	}
	if j.State == model.StateQueued && p.MaxStarve > 0 {
		since := j.Etime
		if since == 0 {
			since = j.Qtime
		}
		if since > 0 && s.Now-since > p.MaxStarve {
			set |= policy.BitStarving
		}
	}
	return set
}

// preemptLevel is j's preemption priority: its preempt_prio level, plus
// its queue's priority within the level for an express job (OpenPBS:
// among express queues the higher priority queue preempts the lower).
func preemptLevel(s *Snapshot, p *PreemptPolicy, j *model.Job) int {
	set := preemptClasses(s, p, j)
	l := p.Prio.Level(set)
	if set&policy.BitExpress != 0 {
		l += min(max(s.Queues[j.Queue].Priority, 0), 999)
	}
	return l
}
