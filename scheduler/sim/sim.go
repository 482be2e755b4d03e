package sim

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strconv"

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

// simJob is a trace job with its Strata form and its outcome.
type simJob struct {
	tj    TraceJob
	job   *model.Job
	chunk int // whole nodes asked for
	start int64
}

// Run simulates the trace under opt.
func Run(tr *Trace, opt Options) (Result, error) {
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
	defs := model.ResourceDefs{
		"ncpus":    {Name: "ncpus", Type: model.TypeLong, Flags: "hn"},
		"walltime": {Name: "walltime", Type: model.TypeDuration},
	}
	vnodes := make([]*model.Vnode, nodes)
	for i := range vnodes {
		name := fmt.Sprintf("n%05d", i)
		vnodes[i] = &model.Vnode{Name: name, Host: name,
			Available: map[string]string{"ncpus": strconv.Itoa(ppn)},
			Capacity:  map[string]float64{"ncpus": float64(ppn)},
			Assigned:  map[string]float64{"ncpus": 0},
			Jobs:      map[string]int{},
		}
	}
	byName := make(map[string]*model.Vnode, nodes)
	for _, v := range vnodes {
		byName[v.Name] = v
	}

	jobs := window(tr.Jobs, opt.Start, opt.Count)
	var sj []*simJob
	for i, tj := range jobs {
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
		wall = max(wall, 1)
		id := strconv.FormatInt(tj.ID, 10) + ".sim"
		j := &model.Job{
			ID: id, Seq: int64(i + 1), Queue: "workq", State: model.StateQueued,
			Qtime: tj.Submit, Etime: tj.Submit, Ctime: tj.Submit,
			Select: model.Select{{
				Count:   chunks,
				Res:     []model.ResReq{{Name: "ncpus", Value: strconv.Itoa(ppn)}},
				Consume: map[string]float64{"ncpus": float64(ppn)},
			}},
			ResourceList: map[string]string{"walltime": model.FormatDuration(wall)},
		}
		sj = append(sj, &simJob{tj: tj, job: j, chunk: chunks})
	}
	res.Jobs = len(sj)
	if len(sj) == 0 {
		return res, nil
	}
	slices.SortStableFunc(sj, func(a, b *simJob) int { return cmpInt(a.tj.Submit, b.tj.Submit) })

	byID := make(map[string]*simJob, len(sj))
	for _, s := range sj {
		byID[s.job.ID] = s
	}
	snap := &scheduler.Snapshot{
		Epoch:  1,
		Defs:   defs,
		Vnodes: vnodes,
		Queues: map[string]scheduler.Queue{"workq": {Name: "workq"}},
		Config: cfg,
	}
	var queued []*model.Job
	var running []*model.Job
	var ends endHeap
	next := 0
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
			release(byName, e.job)
			running = remove(running, e.job)
		}
		for next < len(sj) && sj[next].tj.Submit <= t {
			queued = append(queued, sj[next].job)
			next++
		}
		if len(queued) == 0 {
			continue
		}
		snap.Now, snap.Queued, snap.Running = t, queued, running
		plan := scheduler.Schedule(snap)
		res.Cycles++
		for _, d := range plan.Runs {
			s := byID[d.JobID]
			r := *s.job
			r.State, r.Stime, r.Exec = model.StateRunning, t, d.Exec
			r.Comment, r.TopJob, r.EstStart, r.EstExec = "", false, 0, nil
			s.job, s.start = &r, t
			assign(byName, &r)
			running = append(running, &r)
			heap.Push(&ends, end{t: t + s.tj.Run, seq: r.Seq, job: &r})
			last = max(last, t+s.tj.Run)
		}
		// Comments and estimates go to jobs still queued, copied before
		// the change as the server's store does.
		for _, c := range plan.Comments {
			if s := byID[c.JobID]; s.job.State == model.StateQueued {
				j := *s.job
				j.Comment = c.Comment
				if c.NeverRun {
					j.NeverRunEpoch = snap.Epoch
				}
				s.job = &j
			}
		}
		for _, e := range plan.Estimates {
			if s := byID[e.JobID]; s.job.State == model.StateQueued {
				j := *s.job
				j.EstStart, j.EstExec, j.TopJob = e.Start, e.Exec, e.Top
				s.job = &j
			}
		}
		kept := queued[:0]
		for _, j := range queued {
			if s := byID[j.ID]; s.job.State == model.StateQueued {
				kept = append(kept, s.job)
			}
		}
		clear(queued[len(kept):])
		queued = kept
	}
	var wait, bsld, work float64
	for _, s := range sj {
		w := float64(s.start - s.tj.Submit)
		run := float64(s.tj.Run)
		wait += w
		bsld += max((w+run)/max(run, 10), 1)
		work += run * float64(s.chunk*ppn)
	}
	n := float64(len(sj))
	res.AvgWait, res.AvgBSLD = wait/n, bsld/n
	res.Makespan = last - first
	if res.Makespan > 0 {
		res.Util = work / (float64(res.Procs) * float64(res.Makespan))
	}
	return res, nil
}

func window(jobs []TraceJob, start, count int) []TraceJob {
	start = min(max(0, start), len(jobs))
	jobs = jobs[start:]
	if count > 0 && count < len(jobs) {
		jobs = jobs[:count]
	}
	return jobs
}

func assign(vs map[string]*model.Vnode, j *model.Job) {
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			v := vs[sh.Vnode]
			n := sh.Amounts["ncpus"]
			v.Assigned["ncpus"] += n
			v.Jobs[j.ID] += int(n)
		}
	}
}

func release(vs map[string]*model.Vnode, j *model.Job) {
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			v := vs[sh.Vnode]
			v.Assigned["ncpus"] -= sh.Amounts["ncpus"]
			delete(v.Jobs, j.ID)
		}
	}
}

func remove(js []*model.Job, j *model.Job) []*model.Job {
	for i, x := range js {
		if x == j {
			js[i] = js[len(js)-1]
			js[len(js)-1] = nil
			return js[:len(js)-1]
		}
	}
	return js
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
	job *model.Job
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
