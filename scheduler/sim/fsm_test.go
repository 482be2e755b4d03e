package sim

import (
	"container/heap"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/schedglue"
)

// The simulator applies a plan by itself (sim.go: assign, release, the
// copies of comments and estimates) because the server's state machine
// costs too much per cycle for whole traces: replayed through it
// (replayOnStateMachine below), the 10,000-job Lublin trace under EASY
// takes 26.5 s instead of 9.7 s, mostly in the FSM writing each cycle's
// changed comments into the store. This test holds the two equal: the
// same trace, replayed through schedglue's Harness (the real FSM, the
// server's Input and the ApplyPlan command the leader commits, job ends
// as the agent's "ended" events), gives the same metrics.
func TestSameOutcomeAsTheStateMachine(t *testing.T) {
	type trace struct {
		name string
		tr   *Trace
		opt  Options
	}
	var traces []trace
	for name, swf := range map[string]string{"hand": handSWF, "backfill": backfillSWF} {
		tr, err := Parse(strings.NewReader(swf))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, trace{name, tr, Options{}}, trace{name + " exact", tr, Options{Exact: true}})
	}
	tr, err := ReadFile(filepath.Join("testdata", "traces", "lublin_256.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	traces = append(traces, trace{"lublin 300 jobs", tr, Options{Start: 1000, Count: 300}})
	traces = append(traces, trace{"lublin 300 jobs on 64 procs", tr, Options{Start: 3000, Count: 300, Procs: 64}})
	for _, tc := range traces {
		for _, pol := range []string{PolicyFCFS, PolicyEASY, PolicyConservative, PolicyStrata} {
			opt := tc.opt
			opt.Policy = pol
			want, err := Run(tc.tr, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := replayOnStateMachine(tc.tr, opt)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, pol, err)
			}
			if got != want {
				t.Errorf("%s %s:\nsimulator     %+v\nstate machine %+v", tc.name, pol, want, got)
			}
		}
	}
}

// backfillSWF is TestBackfillHelps's trace.
const backfillSWF = `; MaxNodes: 4
1  0 -1 100 3 -1 -1 3 100 -1 1 1 1 1 1 1 -1 -1
2  1 -1 100 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1
3  2 -1  50 1 -1 -1 1  50 -1 1 1 1 1 1 1 -1 -1
`

// replayOnStateMachine is Run with the server's state machine in place of
// the simulator's own bookkeeping: hosts register, jobs are submitted,
// each cycle is schedglue's (Input, Schedule, the ApplyPlan command) and
// a job's end is its agent's "ended" event.
func replayOnStateMachine(tr *Trace, opt Options) (Result, error) {
	c, err := Config(opt.Policy)
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
	h, err := schedglue.NewHarness(model.ServerConfig{
		Name:   "sim",
		Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}},
		Sched:  model.SchedConfig{StrictOrdering: c.StrictOrdering, BackfillDepth: int64(c.BackfillDepth)},
	})
	if err != nil {
		return res, err
	}
	for i := 0; i < nodes; i++ {
		name := fmt.Sprintf("n%05d", i)
		v := &model.Vnode{Name: name, Available: map[string]string{"ncpus": strconv.Itoa(ppn)}}
		if _, err := h.Apply(&raftstore.RegisterHost{Host: name, Vnodes: []*model.Vnode{v}}); err != nil {
			return res, err
		}
	}

	var sj []*simJob
	for _, tj := range window(tr.Jobs, opt.Start, opt.Count) {
		chunks := (tj.Procs + ppn - 1) / ppn
		if chunks > nodes {
			res.TooLarge++
			continue
		}
		if tj.Capped {
			res.Capped++
		}
		sj = append(sj, &simJob{tj: tj, chunk: chunks})
	}
	res.Jobs = len(sj)
	if len(sj) == 0 {
		return res, nil
	}
	slices.SortStableFunc(sj, func(a, b *simJob) int { return cmpInt(a.tj.Submit, b.tj.Submit) })
	submit := func(s *simJob) (string, error) {
		sel, err := model.ParseSelect(fmt.Sprintf("%d:ncpus=%d", s.chunk, ppn), model.BuiltinResources())
		if err != nil {
			return "", err
		}
		wall := s.tj.ReqTime
		if opt.Exact {
			wall = s.tj.Run
		}
		j := &model.Job{Name: "sim", User: "sim", Owner: "sim@sim", Queue: "workq", Select: sel,
			ResourceList: map[string]string{"walltime": model.FormatDuration(max(wall, 1))}}
		out, err := h.Apply(&raftstore.SubmitJob{Job: j, Now: s.tj.Submit})
		id, _ := out.(string)
		return id, err
	}

	byID := make(map[string]*simJob, len(sj))
	var ends fsmEnds
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
			e := heap.Pop(&ends).(fsmEnd)
			ev := &raftstore.JobEvents{Host: e.host, Now: t, Events: []model.JobEvent{{JobID: e.id, Kind: model.JobEventEnded, Run: 1}}}
			if _, err := h.Apply(ev); err != nil {
				return res, err
			}
		}
		for next < len(sj) && sj[next].tj.Submit <= t {
			id, err := submit(sj[next])
			if err != nil {
				return res, err
			}
			byID[id] = sj[next]
			next++
			queued++
		}
		if queued == 0 {
			continue
		}
		c, err := h.Cycle(t)
		if err != nil {
			return res, err
		}
		res.Cycles++
		if c.Started != len(c.Plan.Runs) {
			return res, fmt.Errorf("at %d the state machine started %d of %d jobs", t, c.Started, len(c.Plan.Runs))
		}
		for _, d := range c.Plan.Runs {
			s := byID[d.JobID]
			s.start = t
			queued--
			heap.Push(&ends, fsmEnd{t: t + s.tj.Run, id: d.JobID, host: d.Exec[0].Shares[0].Host})
			last = max(last, t+s.tj.Run)
		}
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

// fsmEnd is a job's end: its agent (on host) reports it. All ends due
// are applied before a cycle, so their order among themselves is free.
type fsmEnd struct {
	t        int64
	id, host string
}

type fsmEnds []fsmEnd

func (h fsmEnds) Len() int           { return len(h) }
func (h fsmEnds) Less(i, j int) bool { return h[i].t < h[j].t }
func (h fsmEnds) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *fsmEnds) Push(x any)        { *h = append(*h, x.(fsmEnd)) }
func (h *fsmEnds) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
