package sim

import (
	"container/heap"
	"fmt"
	"math"
	"slices"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/scheduler"
)

// Policies the simulator knows, as scheduler configurations.
const (
	PolicyFCFS         = "fcfs"         // strict order, no backfill
	PolicyEASY         = "easy"         // strict order, backfill_depth 1
	PolicyConservative = "conservative" // every blocked job is a top job
	PolicyStrata       = "strata"       // backfill_depth StrataDepth, kept estimates
)

// StrataDepth is the backfill_depth of the "strata" policy: deep enough to
// protect the head of the queue, shallow enough to keep cycles cheap.
const StrataDepth = 8

// Options select the machine, the jobs and the policy of a run.
type Options struct {
	// Procs overrides the machine size (header MaxProcs); 0 keeps it.
	Procs int
	// Start and Count select jobs [Start, Start+Count) of the trace after
	// dropped records are removed; Count 0 means to the end.
	Start, Count int
	Policy       string
	// Exact uses the actual run time as walltime instead of the user's
	// request.
	Exact bool
	// AOE adds provisioning (aoe.go); AOE.AOEs 0 runs without AOEs.
	AOE AOEOptions
	// Fairshare turns on fair_share (fairshare.go); PerGroup reports
	// per-user and per-group outcomes (implied by Fairshare).
	Fairshare *FairshareOptions
	PerGroup  bool
}

// Config returns the scheduler configuration of a policy.
func Config(policy string) (scheduler.Config, error) {
	c := scheduler.Config{StrictOrdering: true}
	switch policy {
	case PolicyFCFS:
		c.BackfillDepth = 0
	case PolicyEASY:
		c.BackfillDepth = 1
	case PolicyConservative:
		c.BackfillDepth = math.MaxInt32
	case PolicyStrata, "":
		c.BackfillDepth = StrataDepth
	default:
		return c, fmt.Errorf("unknown policy %q (want fcfs, easy, conservative or strata)", policy)
	}
	return c, nil
}

// Result holds the metrics of a run. Times are seconds.
type Result struct {
	Policy    string  `json:"policy"`
	Estimates string  `json:"estimates"`
	Jobs      int     `json:"jobs"`
	Nodes     int     `json:"nodes"`
	PPN       int     `json:"procs_per_node"`
	Procs     int     `json:"procs"`
	AvgWait   float64 `json:"avg_wait"`
	AvgBSLD   float64 `json:"avg_bounded_slowdown"`
	Util      float64 `json:"utilization"`
	Makespan  int64   `json:"makespan"`
	Cycles    int     `json:"cycles"`
	Capped    int     `json:"capped_at_walltime"`
	TooLarge  int     `json:"dropped_too_large"`
	// Fairshare says whether fair_share ordered the jobs; Fairness is the
	// per-user and per-group report (fairshare.go).
	Fairshare bool      `json:"fairshare,omitempty"`
	Fairness  *Fairness `json:"fairness,omitempty"`
	*AOEResult
}

// machine derives the node layout: MaxNodes vnodes of MaxProcs/MaxNodes
// cpus (whole nodes); one cpu per vnode when the header gives only one of
// them or they are equal.
func machine(tr *Trace, procs int) (nodes, ppn int) {
	ppn = 1
	if tr.MaxNodes > 0 && tr.MaxProcs > tr.MaxNodes && tr.MaxProcs%tr.MaxNodes == 0 {
		ppn = tr.MaxProcs / tr.MaxNodes
	}
	total := procs
	if total <= 0 {
		total = max(tr.MaxProcs, tr.MaxNodes)
	}
	if total <= 0 {
		for _, j := range tr.Jobs {
			total = max(total, j.Procs)
		}
	}
	return max(1, total/ppn), ppn
}

// Machine is the simulated cluster: Nodes vnodes of PPN cpus each, named
// n00000, n00001, ...
type Machine struct {
	Nodes, PPN int
	// AOEs, when set, are offered by every vnode; vnode i starts on
	// AOEs[i mod len(AOEs)] (aoe.go).
	AOEs []string
}

// VnodeName is the name of vnode i.
func VnodeName(i int) string { return fmt.Sprintf("n%05d", i) }

// JobSpec is one trace job as the books submit it: Chunks whole vnodes of
// the machine's PPN cpus, with walltime Walltime seconds. Seq orders ties.
type JobSpec struct {
	TraceID  int64
	Seq      int64
	Chunks   int
	Walltime int64
	AOE      string // the environment the job asks for (aoe.go), or ""
	// User and Group name the trace's user and group (u<uid>, g<gid>).
	User, Group string
}

// Books keep the simulated state: the simulator's own (Run, the fast
// default) or the server's state machine (server/schedglue's SimBooks,
// through the same commands and apply path the leader commits). One event
// loop drives either, so they differ only where they keep the state.
type Books interface {
	// Submit queues a job at time at and returns its id.
	Submit(j JobSpec, at int64) (string, error)
	// Cycle runs one scheduling cycle at now and applies its plan; it
	// returns the jobs started.
	Cycle(now int64) ([]model.RunDecision, error)
	// End ends a running job at now (its agent's "ended" report).
	End(id string, started model.RunDecision, now int64) error
}

// NewBooks makes the books of a run.
type NewBooks func(m Machine, cfg scheduler.Config) (Books, error)

// simJob is a trace job and its outcome.
type simJob struct {
	tj    TraceJob
	spec  JobSpec
	start int64
	// With AOEs (aoe.go): the job's id, whether its start waited for
	// provisioning, and its estimated start after its first cycle.
	id          string
	provisioned bool
	est         int64
	hasEst      bool
}

// Run simulates the trace under opt with the simulator's own books.
func Run(tr *Trace, opt Options) (Result, error) { return RunWith(tr, opt, newOwnBooks) }

// RunWith simulates the trace under opt with the given books (nil: the
// simulator's own).
func RunWith(tr *Trace, opt Options, books NewBooks) (Result, error) {
	if books == nil {
		books = newOwnBooks
	}
	cfg, err := Config(opt.Policy)
	if err != nil {
		return Result{}, err
	}
	nodes, ppn := machine(tr, opt.Procs)
	res := Result{Policy: opt.Policy, Estimates: "user", Nodes: nodes, PPN: ppn, Procs: nodes * ppn}
	if res.Policy == "" {
		res.Policy = PolicyStrata
	}
	if opt.Exact {
		res.Estimates = "exact"
	}
	var ar *aoeRun // provisioning (aoe.go)
	var aoes []string
	if opt.AOE.AOEs > 0 {
		if ar, err = newAOERun(opt.AOE); err != nil {
			return res, err
		}
		aoes = ar.names
	}
	sj := simJobs(tr, opt, nodes, ppn, &res)
	if ar != nil {
		for _, s := range sj {
			s.spec.AOE = ar.jobAOE(s.tj)
		}
	}
	res.Jobs = len(sj)
	if len(sj) == 0 {
		return res, nil
	}
	slices.SortStableFunc(sj, func(a, b *simJob) int { return cmpInt(a.tj.Submit, b.tj.Submit) })
	b, err := books(Machine{Nodes: nodes, PPN: ppn, AOEs: aoes}, cfg)
	if err != nil {
		return res, err
	}
	pb, _ := b.(provBooks)
	if ar != nil && pb == nil {
		return res, fmt.Errorf("these books do not model provisioning: AOEs need the simulator's own")
	}
	var fresh []*simJob // submitted at t (AOE estimates)
	var prov scheduler.ProvisionInfo
	var fs *simFairshare
	if opt.Fairshare != nil {
		if fs, err = newSimFairshare(opt.Fairshare, sj, b, ppn); err != nil {
			return res, err
		}
		res.Fairshare = true
	}

	byID := make(map[string]*simJob, len(sj))
	var ends endHeap
	next, queued := 0, 0
	first := sj[0].tj.Submit
	var last int64
	for next < len(sj) || len(ends) > 0 {
		t := int64(math.MaxInt64)
		if next < len(sj) {
			t = sj[next].tj.Submit
		}
		if len(ends) > 0 && ends[0].t < t {
			t = ends[0].t
		}
		for len(ends) > 0 && ends[0].t <= t {
			e := heap.Pop(&ends).(end)
			if err := b.End(e.id, e.run, t); err != nil {
				return res, err
			}
			if fs != nil {
				fs.ended(byID[e.id], t)
			}
		}
		for next < len(sj) && sj[next].tj.Submit <= t {
			id, err := b.Submit(sj[next].spec, t)
			if err != nil {
				return res, err
			}
			byID[id] = sj[next]
			if ar != nil {
				sj[next].id = id
				fresh = append(fresh, sj[next])
			}
			next++
			queued++
		}
		if queued == 0 {
			continue
		}
		if ar != nil {
			prov = ar.info(t)
			pb.SetProvision(prov)
		}
		if fs != nil {
			fs.beforeCycle(t)
		}
		runs, err := b.Cycle(t)
		if err != nil {
			return res, err
		}
		res.Cycles++
		for _, d := range runs {
			s := byID[d.JobID]
			var delay int64
			if ar != nil {
				delay = ar.started(s, d, t, prov)
			}
			s.start = t + delay
			queued--
			if fs != nil {
				fs.started(s, t)
			}
			heap.Push(&ends, end{t: s.start + s.tj.Run, seq: s.spec.Seq, id: d.JobID, run: d})
			last = max(last, s.start+s.tj.Run)
		}
		if ar != nil {
			ar.noteEstimates(b, fresh)
			fresh = fresh[:0]
		}
	}
	var wait, bsld, work float64
	for _, s := range sj {
		w := float64(s.start - s.tj.Submit)
		run := float64(s.tj.Run)
		wait += w
		bsld += max((w+run)/max(run, 10), 1)
		work += run * float64(s.spec.Chunks*ppn)
	}
	n := float64(len(sj))
	res.AvgWait, res.AvgBSLD = wait/n, bsld/n
	res.Makespan = last - first
	if opt.PerGroup || opt.Fairshare != nil {
		res.Fairness = fairness(sj, ppn)
	}
	if res.Makespan > 0 {
		res.Util = work / (float64(res.Procs) * float64(res.Makespan))
	}
	if ar != nil {
		res.AOEResult = ar.result(sj)
	}
	return res, nil
}

// simJobs are the jobs of the trace window on a machine of nodes x ppn;
// res counts those capped at their walltime and those too large.
func simJobs(tr *Trace, opt Options, nodes, ppn int, res *Result) []*simJob {
	var sj []*simJob
	for i, tj := range window(tr.Jobs, opt.Start, opt.Count) {
		chunks := (tj.Procs + ppn - 1) / ppn
		if chunks > nodes {
			res.TooLarge++
			continue
		}
		if tj.Capped {
			res.Capped++
		}
		wall := tj.ReqTime
		if opt.Exact {
			wall = tj.Run
		}
		sj = append(sj, &simJob{tj: tj, spec: JobSpec{TraceID: tj.ID, Seq: int64(i + 1), Chunks: chunks, Walltime: max(wall, 1),
			User: traceUser(tj), Group: traceGroup(tj)}})
	}
	return sj
}

func window(jobs []TraceJob, start, count int) []TraceJob {
	start = min(max(0, start), len(jobs))
	jobs = jobs[start:]
	if count > 0 && count < len(jobs) {
		jobs = jobs[:count]
	}
	return jobs
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// end is a job end event; ties break by submission order for determinism.
type end struct {
	t   int64
	seq int64
	id  string
	run model.RunDecision
}

type endHeap []end

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(end)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
