package sim

import (
	"fmt"
	"math"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/scheduler"
)

// AOEOptions add provisioning to a run (docs/simulate.md, "AOEs"). With
// AOEs > 0 every job asks for one of AOEs environments, chosen by its
// trace user (users keep their environment) or, when the trace has no
// users, by its job number; vnode i starts on AOE i mod AOEs. A run
// decision that puts a job on vnodes of another AOE provisions their
// hosts: each takes ReimageTime seconds (AppTime for application AOEs),
// at most MaxConcurrentProvision at once in FIFO order, and the job
// starts when the last of its hosts is done.
type AOEOptions struct {
	AOEs        int
	ReimageTime int64
	// AppTime > 0 makes the odd-numbered AOEs application environments
	// (the provision hook exits 1, no reboot) that take AppTime seconds.
	AppTime int64
	// ProvisionPolicy is the sched provision_policy (default aggressive).
	ProvisionPolicy string
	// MaxConcurrentProvision is max_concurrent_provision (0: PBS's 5).
	MaxConcurrentProvision int
}

// AOEResult is what a run with AOEs adds to the result. Estimates are the
// estimated start of each job as known after its first cycle: the start
// of a job started in it (plus its AOE's learned provisioning time when
// its vnodes must be provisioned), else its top-job estimate; jobs without
// either (beyond backfill_depth) are not counted.
type AOEResult struct {
	AOEs                    int     `json:"aoes"`
	ReimageTime             int64   `json:"reimage_time"`
	AppTime                 int64   `json:"app_time,omitempty"`
	ProvisionPolicy         string  `json:"provision_policy"`
	MaxConcurrentProvision  int     `json:"max_concurrent_provision"`
	Reimages                int     `json:"reimages"`
	ProvisioningNodeSeconds int64   `json:"provisioning_node_seconds"`
	ProvisionedJobs         int     `json:"provisioned_jobs"`
	AvgWaitProvisioned      float64 `json:"avg_wait_provisioned"`
	AvgBSLDProvisioned      float64 `json:"avg_bounded_slowdown_provisioned"`
	AvgWaitReady            float64 `json:"avg_wait_ready"`
	AvgBSLDReady            float64 `json:"avg_bounded_slowdown_ready"`
	EstimatedJobs           int     `json:"estimated_jobs"`
	EstimateMAE             float64 `json:"estimate_mae"`
}

// provBooks are books that model provisioning (the simulator's own).
type provBooks interface {
	// SetProvision sets what the next cycle knows about provisioning.
	SetProvision(scheduler.ProvisionInfo)
	// EstStart is a queued job's top-job estimated start, 0 for none.
	EstStart(id string) int64
}

// aoeRun is the provisioning side of one run.
type aoeRun struct {
	opt   AOEOptions
	names []string
	dur   map[string]int64
	// slots holds when each provisioning slot is next free; operations
	// take the earliest slot in the order the scheduler asked for them.
	slots []int64
	// done holds the end times of operations not known finished.
	done []int64
	// learned maps an AOE to when its first operation finished: from then
	// on the scheduler knows its time, before it assumes
	// model.ProvisionDuration, as the server does.
	learned map[string]int64
	res     AOEResult
}

func newAOERun(opt AOEOptions) (*aoeRun, error) {
	switch opt.ProvisionPolicy {
	case "":
		opt.ProvisionPolicy = scheduler.AggressiveProvision
	case scheduler.AggressiveProvision, scheduler.AvoidProvision, scheduler.LookaheadProvision:
	default:
		return nil, fmt.Errorf("unknown provision policy %q (want %s, %s or %s)", opt.ProvisionPolicy,
			scheduler.AggressiveProvision, scheduler.AvoidProvision, scheduler.LookaheadProvision)
	}
	if opt.ReimageTime <= 0 || opt.AppTime < 0 || opt.MaxConcurrentProvision < 0 {
		return nil, fmt.Errorf("reimage time must be positive, app time and max concurrent provisioning not negative")
	}
	if opt.MaxConcurrentProvision == 0 {
		opt.MaxConcurrentProvision = 5
	}
	a := &aoeRun{opt: opt, dur: map[string]int64{}, learned: map[string]int64{},
		slots: make([]int64, opt.MaxConcurrentProvision)}
	for i := 0; i < opt.AOEs; i++ {
		name := fmt.Sprintf("aoe%d", i)
		a.names = append(a.names, name)
		a.dur[name] = opt.ReimageTime
		if opt.AppTime > 0 && i%2 == 1 {
			a.dur[name] = opt.AppTime
		}
	}
	a.res = AOEResult{AOEs: opt.AOEs, ReimageTime: opt.ReimageTime, AppTime: opt.AppTime,
		ProvisionPolicy: opt.ProvisionPolicy, MaxConcurrentProvision: opt.MaxConcurrentProvision}
	return a, nil
}

// jobAOE is the AOE of a trace job: by user, else by job number.
func (a *aoeRun) jobAOE(tj TraceJob) string {
	k := tj.ID
	if tj.User >= 0 {
		k = tj.User
	}
	n := int64(len(a.names))
	return a.names[((k%n)+n)%n]
}

// info is the scheduler's provisioning view at t.
func (a *aoeRun) info(t int64) scheduler.ProvisionInfo {
	kept := a.done[:0]
	for _, d := range a.done {
		if d > t {
			kept = append(kept, d)
		}
	}
	a.done = kept
	p := scheduler.ProvisionInfo{Enabled: true, Policy: a.opt.ProvisionPolicy,
		InFlight: len(a.done), MaxConcurrent: a.opt.MaxConcurrentProvision}
	for aoe, at := range a.learned {
		if at <= t {
			if p.Estimates == nil {
				p.Estimates = map[string]int64{}
			}
			p.Estimates[aoe] = a.dur[aoe]
		}
	}
	return p
}

// provision queues the operations of a run decision at t (one per host
// whose shares carry an AOE) and returns how long until the last is done.
func (a *aoeRun) provision(d model.RunDecision, t int64) int64 {
	hosts := map[string]string{}
	var order []string
	for _, ec := range d.Exec {
		for _, sh := range ec.Shares {
			if sh.AOE != "" {
				if _, ok := hosts[sh.Host]; !ok {
					order = append(order, sh.Host)
				}
				hosts[sh.Host] = sh.AOE
			}
		}
	}
	var last int64
	for _, h := range order {
		aoe := hosts[h]
		k := 0
		for i := range a.slots {
			if a.slots[i] < a.slots[k] {
				k = i
			}
		}
		done := max(t, a.slots[k]) + a.dur[aoe]
		a.slots[k] = done
		a.done = append(a.done, done)
		if at, ok := a.learned[aoe]; !ok || done < at {
			a.learned[aoe] = done
		}
		a.res.Reimages++
		a.res.ProvisioningNodeSeconds += a.dur[aoe] // one vnode per host
		last = max(last, done-t)
	}
	return last
}

// started accounts for a job started at t and returns its provisioning
// delay. Its estimate is its start (with the learned provisioning time)
// when t is its submission, that is, its first cycle.
func (a *aoeRun) started(s *simJob, d model.RunDecision, t int64, p scheduler.ProvisionInfo) int64 {
	delay := a.provision(d, t)
	s.provisioned = delay > 0
	if s.tj.Submit == t {
		s.est, s.hasEst = t, true
		if delay > 0 {
			s.est += p.Estimate(s.spec.AOE)
		}
	}
	return delay
}

// noteEstimates records the top-job estimates of jobs submitted at t that
// did not start in their first cycle.
func (a *aoeRun) noteEstimates(b Books, fresh []*simJob) {
	pb, ok := b.(provBooks)
	if !ok {
		return
	}
	for _, s := range fresh {
		if e := pb.EstStart(s.id); !s.hasEst && e > 0 {
			s.est, s.hasEst = e, true
		}
	}
}

// result completes the AOE figures from the jobs' outcomes.
func (a *aoeRun) result(sj []*simJob) *AOEResult {
	r := a.res
	var wp, bp, wr, br, mae float64
	var np, nr int
	for _, s := range sj {
		w := float64(s.start - s.tj.Submit)
		run := float64(s.tj.Run)
		b := max((w+run)/max(run, 10), 1)
		if s.provisioned {
			wp, bp, np = wp+w, bp+b, np+1
		} else {
			wr, br, nr = wr+w, br+b, nr+1
		}
		if s.hasEst {
			mae += math.Abs(float64(s.est - s.start))
			r.EstimatedJobs++
		}
	}
	r.ProvisionedJobs = np
	if np > 0 {
		r.AvgWaitProvisioned, r.AvgBSLDProvisioned = wp/float64(np), bp/float64(np)
	}
	if nr > 0 {
		r.AvgWaitReady, r.AvgBSLDReady = wr/float64(nr), br/float64(nr)
	}
	if r.EstimatedJobs > 0 {
		r.EstimateMAE = mae / float64(r.EstimatedJobs)
	}
	return &r
}
