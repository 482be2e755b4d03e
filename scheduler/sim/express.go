package sim

import (
	"container/heap"
	"math"
	"slices"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
	"github.com/strata-hpc/strata/scheduler"
)

// Preemption in the simulator (strata simulate --express-fraction): a
// deterministic fraction of the trace's jobs is submitted to an express
// queue (priority 200, above preempt_queue_prio 150) and may preempt the
// others with preempt_order (default SCR: in the simulator every job can
// be suspended, so S). A suspended job keeps what it has run and ends
// that much later once resumed; a requeued job starts again from nothing
// (its lost work is counted); a deleted job never finishes. The event
// loop is Run's, with job ends versioned so that a preempted run's end is
// ignored.

// ExpressOptions are the preemption settings of a run.
type ExpressOptions struct {
	// Fraction of the jobs (0..1) submitted to the express queue.
	Fraction float64
	// Order is preempt_order ("" is SCR).
	Order string
}

// ExpressResult adds the preemption figures to Result.
type ExpressResult struct {
	Result
	ExpressJobs    int     `json:"express_jobs"`
	ExpressAvgWait float64 `json:"express_avg_wait"`
	NormalAvgWait  float64 `json:"normal_avg_wait"`
	Preemptions    int     `json:"preemptions"`
	Suspensions    int     `json:"suspensions"`
	Requeues       int     `json:"requeues"`
	Deletions      int     `json:"deletions"`
	Resumes        int     `json:"resumes"`
	// LostWork is processor-seconds of runs thrown away by requeue or
	// delete.
	LostWork float64 `json:"lost_work_proc_seconds"`
}

// expressQueue is the simulated express queue's name.
const expressQueue = "express"

// isExpress picks the express jobs: a fixed hash of the job's position,
// so the same trace and fraction pick the same jobs on every run.
func isExpress(seq int64, fraction float64) bool {
	h := uint64(seq) * 0x9E3779B97F4A7C15
	return float64(h>>11)/float64(1<<53) < fraction
}

// xjob is a job of an express run.
type xjob struct {
	spec    JobSpec
	submit  int64
	run     int64 // the trace's run time
	left    int64 // run time still to go (suspension keeps progress)
	start   int64 // last start or resume
	first   int64 // first start (wait = first - submit)
	version int   // bumped when a run stops, so its end is stale
	express bool
	done    bool
}

// RunExpress simulates the trace under opt with an express stream.
func RunExpress(tr *Trace, opt Options, ex ExpressOptions) (ExpressResult, error) {
	cfg, err := Config(opt.Policy)
	if err != nil {
		return ExpressResult{}, err
	}
	order := ex.Order
	if order == "" {
		order = model.DefaultPreemptOrder
	}
	steps, err := policy.ParsePreemptOrder(order)
	if err != nil {
		return ExpressResult{}, err
	}
	prio, _ := policy.ParsePreemptPrio(model.DefaultPreemptPrio)
	cfg.Preempt = &scheduler.PreemptPolicy{Prio: prio, Order: steps, QueuePrio: model.DefaultPreemptQueuePrio}

	nodes, ppn := machine(tr, opt.Procs)
	res := ExpressResult{Result: Result{Policy: opt.Policy, Estimates: "user", Nodes: nodes, PPN: ppn, Procs: nodes * ppn}}
	if res.Policy == "" {
		res.Policy = PolicyStrata
	}
	if opt.Exact {
		res.Estimates = "exact"
	}
	var jobs []*xjob
	for _, s := range simJobs(tr, opt, nodes, ppn, &res.Result) {
		jobs = append(jobs, &xjob{spec: s.spec, submit: s.tj.Submit, run: s.tj.Run, left: s.tj.Run, first: -1,
			express: isExpress(s.spec.Seq, ex.Fraction)})
	}
	res.Jobs = len(jobs)
	if len(jobs) == 0 {
		return res, nil
	}
	slices.SortStableFunc(jobs, func(a, b *xjob) int { return cmpInt(a.submit, b.submit) })
	b := newExpressBooks(Machine{Nodes: nodes, PPN: ppn}, cfg)
	var ends endHeap
	start := func(j *xjob, id string, t int64) {
		j.start = t
		if j.first < 0 {
			j.first = t
		}
		heap.Push(&ends, end{t: t + j.left, seq: int64(j.version), id: id})
	}
	next, first := 0, jobs[0].submit
	var last int64
	for next < len(jobs) || len(ends) > 0 {
		t := int64(math.MaxInt64)
		if next < len(jobs) {
			t = jobs[next].submit
		}
		if len(ends) > 0 && ends[0].t < t {
			t = ends[0].t
		}
		for len(ends) > 0 && ends[0].t <= t {
			e := heap.Pop(&ends).(end)
			j := b.sim[e.id]
			if j.done || int64(j.version) != e.seq || !b.isRunning(e.id) {
				continue // a preempted run's end
			}
			j.done = true
			last = max(last, t)
			b.end(e.id)
		}
		for next < len(jobs) && jobs[next].submit <= t {
			b.submit(jobs[next], t)
			next++
		}
		if len(b.queued) == 0 && len(b.suspended()) == 0 {
			continue
		}
		plan := b.cycle(t)
		res.Cycles++
		for _, p := range plan.Preempts {
			j := b.sim[p.JobID]
			j.version++
			res.Preemptions++
			switch p.Method {
			case model.PreemptSuspend:
				res.Suspensions++
				j.left -= t - j.start
			case model.PreemptDelete:
				res.Deletions++
				res.LostWork += float64((t - j.start) * int64(j.spec.Chunks*ppn))
				j.done = true
			default: // R, and C (no checkpoint file in a simulation)
				res.Requeues++
				res.LostWork += float64((t - j.start) * int64(j.spec.Chunks*ppn))
				j.left = j.run
			}
		}
		for _, id := range plan.Resumes {
			res.Resumes++
			start(b.sim[id], id, t)
		}
		for _, d := range plan.Runs {
			start(b.sim[d.JobID], d.JobID, t)
		}
	}
	var wait, bsld, work, xwait, nwait float64
	for _, j := range jobs {
		if j.first < 0 { // deleted before it ever started: not counted
			continue
		}
		w := float64(j.first - j.submit)
		run := float64(j.run)
		wait += w
		bsld += max((w+run)/max(run, 10), 1)
		work += run * float64(j.spec.Chunks*ppn)
		if j.express {
			res.ExpressJobs++
			xwait += w
		} else {
			nwait += w
		}
	}
	n := float64(len(jobs))
	res.AvgWait, res.AvgBSLD = wait/n, bsld/n
	if res.ExpressJobs > 0 {
		res.ExpressAvgWait = xwait / float64(res.ExpressJobs)
	}
	if normal := len(jobs) - res.ExpressJobs; normal > 0 {
		res.NormalAvgWait = nwait / float64(normal)
	}
	res.Makespan = last - first
	if res.Makespan > 0 {
		res.Util = work / (float64(res.Procs) * float64(res.Makespan))
	}
	return res, nil
}

// expressBooks are ownBooks with preemption applied: suspended jobs give
// their cpus back and stay listed as running (S, substate 45), requeued
// jobs go back to the queue, deleted ones disappear.
type expressBooks struct {
	*ownBooks
	sim map[string]*xjob
}

func newExpressBooks(m Machine, cfg scheduler.Config) *expressBooks {
	ob, _ := newOwnBooks(m, cfg)
	b := &expressBooks{ownBooks: ob.(*ownBooks), sim: map[string]*xjob{}}
	b.snap.Queues[expressQueue] = scheduler.Queue{Name: expressQueue, Priority: 200}
	return b
}

func (b *expressBooks) submit(j *xjob, at int64) {
	id, _ := b.Submit(j.spec, at)
	if j.express {
		cp := *b.jobs[id]
		cp.Queue = expressQueue
		b.replace(&cp)
	}
	b.jobs[id].Rerun = true
	b.sim[id] = j
}

// replace swaps the stored job for cp in every list (stored jobs are
// never changed in place: the snapshot may hold them).
func (b *expressBooks) replace(cp *model.Job) {
	b.jobs[cp.ID] = cp
	for _, l := range [][]*model.Job{b.queued, b.running} {
		for i, x := range l {
			if x.ID == cp.ID {
				l[i] = cp
			}
		}
	}
}

func (b *expressBooks) isRunning(id string) bool {
	j := b.jobs[id]
	return j != nil && j.State == model.StateRunning
}

func (b *expressBooks) suspended() []*model.Job {
	var out []*model.Job
	for _, j := range b.running {
		if j.State == model.StateSuspended {
			out = append(out, j)
		}
	}
	return out
}

func (b *expressBooks) end(id string) { _ = b.End(id, model.RunDecision{}, 0) }

// cycle runs one cycle and applies its preemptions, resumes and runs in
// the FSM's order.
func (b *expressBooks) cycle(now int64) *scheduler.Plan {
	b.snap.Now, b.snap.Queued, b.snap.Running = now, b.queued, b.running
	plan := scheduler.Schedule(b.snap)
	for _, p := range plan.Preempts {
		j := b.jobs[p.JobID]
		switch p.Method {
		case model.PreemptSuspend:
			b.shift(j, -1)
			cp := j.Dup()
			cp.State = model.StateSuspended
			cp.Substate = model.SubSchedSuspended
			cp.SetPreemptedAt(now)
			b.replace(&cp)
		case model.PreemptDelete:
			b.end(j.ID)
		default:
			b.end(j.ID) // releases and forgets; queue it again
			cp := j.Dup()
			cp.State = model.StateQueued
			cp.Substate = model.SubQueued
			cp.Exec = nil
			cp.SetPreemptedAt(now)
			b.jobs[cp.ID] = &cp
			b.queued = append(b.queued, &cp)
		}
	}
	for _, id := range plan.Resumes {
		j := b.jobs[id]
		b.shift(j, +1)
		cp := j.Dup()
		cp.State, cp.Substate = model.StateRunning, model.SubRunning
		b.replace(&cp)
	}
	b.applyPlan(plan, now)
	for _, d := range plan.Runs {
		cp := *b.jobs[d.JobID]
		cp.Substate = model.SubRunning // its agent reported it started
		b.replace(&cp)
	}
	return plan
}

// shift gives a suspended job's cpus back (-1) or takes them again (+1).
func (b *expressBooks) shift(j *model.Job, dir float64) {
	for _, ec := range j.Exec {
		for _, sh := range ec.Shares {
			b.byName[sh.Vnode].Assigned["ncpus"] += dir * sh.Amounts["ncpus"]
		}
	}
}
