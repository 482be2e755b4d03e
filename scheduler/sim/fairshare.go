package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// FairshareOptions turn on fair_share in a run. Usage is charged as the
// server charges it with fairshare_usage_res=ncpus (cpu-seconds
// allocated), to every running job at every cycle (the agents' periodic
// reports), and decayed every DecayTime by DecayFactor of virtual time.
type FairshareOptions struct {
	// Tree is the share tree as resource_group lines; empty builds one
	// from the trace (TraceTree).
	Tree []string
	// Entity is fairshare_entity: euser (default) or egroup; trace users
	// are u<uid>, groups g<gid>.
	Entity      string
	DecayTime   int64   // default 86400
	DecayFactor float64 // default 0.5
}

// TraceTree is the share tree of a trace: one group per SWF group id
// (g<gid>, 1 share each, gnone for unknown) under root, each user (u<uid>)
// under the group of its first job with 1 share. Equal shares make
// fairshare even out usage between groups, then between a group's users.
func TraceTree(jobs []TraceJob) []string {
	groupOf := map[string]string{}
	var users, groups []string
	seenGroup := map[string]bool{}
	for _, j := range jobs {
		u, g := traceUser(j), traceGroup(j)
		if _, ok := groupOf[u]; !ok {
			groupOf[u] = g
			users = append(users, u)
		}
		if !seenGroup[g] {
			seenGroup[g] = true
			groups = append(groups, g)
		}
	}
	var out []string
	id := int64(1)
	for _, g := range groups {
		out = append(out, model.ShareNode{Name: g, ID: id, Parent: model.FairshareRoot, Shares: 1}.String())
		id++
	}
	for _, u := range users {
		out = append(out, model.ShareNode{Name: u, ID: id, Parent: groupOf[u], Shares: 1}.String())
		id++
	}
	return out
}

func traceUser(j TraceJob) string {
	if j.User < 0 {
		return "unone"
	}
	return "u" + strconv.FormatInt(j.User, 10)
}

func traceGroup(j TraceJob) string {
	if j.Group < 0 {
		return "gnone"
	}
	return "g" + strconv.FormatInt(j.Group, 10)
}

// fairshareBooks are books whose scheduler configuration can take a share
// tree per cycle (the simulator's own).
type fairshareBooks interface {
	SetFairshare(f *policy.Fairshare)
}

// simFairshare is a run's usage: charged in virtual time, decayed on the
// same whole-period schedule as the server's replicated clock.
type simFairshare struct {
	cfg       *model.FairshareConfig
	books     fairshareBooks
	usage     map[string]float64
	entities  []string
	charged   map[*simJob]int64 // running job -> charged up to
	lastDecay int64
	ppn       int
	tree      *policy.Fairshare // built once; WithUsage each cycle
}

func newSimFairshare(opt *FairshareOptions, sj []*simJob, b Books, ppn int) (*simFairshare, error) {
	fb, ok := b.(fairshareBooks)
	if !ok {
		return nil, fmt.Errorf("fairshare is simulated with the simulator's own books only (not --state-machine)")
	}
	cfg := &model.FairshareConfig{Enabled: true, Entity: opt.Entity, DecayTime: opt.DecayTime, DecayFactor: opt.DecayFactor, Tree: opt.Tree}
	if len(cfg.Tree) == 0 {
		tjs := make([]TraceJob, len(sj))
		for i, s := range sj {
			tjs[i] = s.tj
		}
		cfg.Tree = TraceTree(tjs)
	}
	if _, err := model.ParseShareTree(cfg.Tree); err != nil {
		return nil, err
	}
	if cfg.Entity != "" && cfg.Entity != model.FairshareEuser && cfg.Entity != model.FairshareEgroup {
		return nil, fmt.Errorf("fairshare entity %q: want euser or egroup", cfg.Entity)
	}
	f := &simFairshare{cfg: cfg, books: fb, usage: map[string]float64{}, charged: map[*simJob]int64{}, ppn: ppn}
	seen := map[string]bool{}
	for _, s := range sj {
		if e := f.entity(s); !seen[e] {
			seen[e] = true
			f.entities = append(f.entities, e)
		}
	}
	slices.Sort(f.entities)
	return f, nil
}

func (f *simFairshare) entity(s *simJob) string {
	if f.cfg.Entity == model.FairshareEgroup {
		return traceGroup(s.tj)
	}
	return traceUser(s.tj)
}

// beforeCycle charges running jobs up to now, decays whole periods and
// gives the books this cycle's tree.
func (f *simFairshare) beforeCycle(now int64) {
	f.chargeTo(now)
	decayTime, factor := f.cfg.Decay()
	if f.lastDecay == 0 {
		f.lastDecay = now
	} else if periods := (now - f.lastDecay) / decayTime; periods > 0 {
		k := math.Pow(factor, float64(min(periods, 1000)))
		for e, u := range f.usage {
			f.usage[e] = u * k
		}
		f.lastDecay += periods * decayTime
	}
	if f.tree == nil {
		f.tree = policy.NewFairshare(f.cfg, f.usage, f.entities)
	}
	f.books.SetFairshare(f.tree.WithUsage(f.usage))
}

func (f *simFairshare) chargeTo(now int64) {
	// In submission order: float sums do not depend on map order.
	running := make([]*simJob, 0, len(f.charged))
	for s := range f.charged {
		running = append(running, s)
	}
	slices.SortFunc(running, func(a, b *simJob) int { return cmp.Compare(a.spec.Seq, b.spec.Seq) })
	for _, s := range running {
		if from := f.charged[s]; now > from {
			f.usage[f.entity(s)] += float64(int64(s.spec.Chunks*f.ppn) * (now - from))
			f.charged[s] = now
		}
	}
}

func (f *simFairshare) started(s *simJob, at int64) { f.charged[s] = at }

func (f *simFairshare) ended(s *simJob, at int64) {
	if from, ok := f.charged[s]; ok && at > from {
		f.usage[f.entity(s)] += float64(int64(s.spec.Chunks*f.ppn) * (at - from))
	}
	delete(f.charged, s)
}

// SetFairshare gives the next cycles a share tree.
func (b *ownBooks) SetFairshare(f *policy.Fairshare) { b.snap.Config.Fairshare = f }

var _ fairshareBooks = (*ownBooks)(nil)

// GroupStat is the outcome of one user's or group's jobs.
type GroupStat struct {
	Name    string  `json:"name"`
	Jobs    int     `json:"jobs"`
	AvgWait float64 `json:"avg_wait"`
	AvgBSLD float64 `json:"avg_bounded_slowdown"`
	// CPUSeconds is the work of its jobs (procs x run time).
	CPUSeconds float64 `json:"cpu_seconds"`
}

// Fairness is the per-user and per-group report of a run, and the spread
// between groups: among groups with at least MinJobs jobs, the largest
// and smallest average wait and bounded slowdown.
type Fairness struct {
	Users   []GroupStat `json:"users"`
	Groups  []GroupStat `json:"groups"`
	MinJobs int         `json:"spread_min_jobs"`
	// Counted is how many groups the spread is over.
	Counted  int     `json:"spread_groups"`
	WaitMin  float64 `json:"group_wait_min"`
	WaitMax  float64 `json:"group_wait_max"`
	BSLDMin  float64 `json:"group_bsld_min"`
	BSLDMax  float64 `json:"group_bsld_max"`
	WaitStd  float64 `json:"group_wait_stddev"`
	BSLDStd  float64 `json:"group_bsld_stddev"`
	TopShare float64 `json:"top_group_work_share"` // the busiest group's share of all work
}

// SpreadMinJobs is the least number of jobs a group needs to count in the
// spread (fewer make the extremes noise).
const SpreadMinJobs = 20

func fairness(sj []*simJob, ppn int) *Fairness {
	stat := func(key func(*simJob) string) []GroupStat {
		by := map[string]*GroupStat{}
		for _, s := range sj {
			k := key(s)
			g := by[k]
			if g == nil {
				g = &GroupStat{Name: k}
				by[k] = g
			}
			w := float64(s.start - s.tj.Submit)
			run := float64(s.tj.Run)
			g.Jobs++
			g.AvgWait += w
			g.AvgBSLD += max((w+run)/max(run, 10), 1)
			g.CPUSeconds += run * float64(s.spec.Chunks*ppn)
		}
		out := make([]GroupStat, 0, len(by))
		for _, g := range by {
			g.AvgWait /= float64(g.Jobs)
			g.AvgBSLD /= float64(g.Jobs)
			out = append(out, *g)
		}
		slices.SortFunc(out, func(a, b GroupStat) int {
			if c := cmp.Compare(b.CPUSeconds, a.CPUSeconds); c != 0 {
				return c
			}
			return cmp.Compare(a.Name, b.Name)
		})
		return out
	}
	f := &Fairness{Users: stat(func(s *simJob) string { return traceUser(s.tj) }),
		Groups: stat(func(s *simJob) string { return traceGroup(s.tj) }), MinJobs: SpreadMinJobs}
	var total float64
	var waits, bslds []float64
	for _, g := range f.Groups {
		total += g.CPUSeconds
		if g.Jobs >= SpreadMinJobs {
			waits = append(waits, g.AvgWait)
			bslds = append(bslds, g.AvgBSLD)
		}
	}
	if total > 0 && len(f.Groups) > 0 {
		f.TopShare = f.Groups[0].CPUSeconds / total
	}
	f.Counted = len(waits)
	if len(waits) > 0 {
		f.WaitMin, f.WaitMax, f.WaitStd = slices.Min(waits), slices.Max(waits), stddev(waits)
		f.BSLDMin, f.BSLDMax, f.BSLDStd = slices.Min(bslds), slices.Max(bslds), stddev(bslds)
	}
	return f
}

func stddev(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq / float64(len(xs)))
}
