package raftstore

import (
	"math"
	"sort"

	memdb "github.com/hashicorp/go-memdb"

	"github.com/strata-hpc/strata/model"
)

// Fairshare usage lives in replicated state, not in a file on the
// scheduler's host as in OpenPBS: every server holds the same figures, a
// new leader orders jobs by them at once, and nothing is lost or rolled
// back with a host. Usage is charged inside the FSM from the
// resources_used the agents report (JobEvents: live usage and the final
// figures at the end), as the increase since the previous report, so it
// is a pure function of the log. Decay is a command the leader commits on
// a timer (server/fairshare.go); the time of the last decay is replicated
// too, so a new leader continues the schedule where the old one stopped
// and no period is decayed twice or skipped.

// Fairshare operations.
const (
	// FairshareTick is the leader's timer: decay every whole
	// fairshare_decay_time elapsed since the last decay.
	FairshareTick = "tick"
	// FairshareSet sets one entity's usage (pbsfs -s).
	FairshareSet = "set"
	// FairshareDecay decays all usage once now (pbsfs -d).
	FairshareDecay = "decay"
	// FairshareTrim forgets the usage of entities not in the tree (pbsfs -e).
	FairshareTrim = "trim"
	// FairshareReset forgets all usage (pbsfs --reset).
	FairshareReset = "reset"
)

// Fairshare changes the fairshare usage. Permission (managers only for
// everything but the leader's tick) is checked by the server.
type Fairshare struct {
	Op     string  `json:"op"`
	Entity string  `json:"entity,omitempty"`
	Usage  float64 `json:"usage,omitempty"`
	Now    int64   `json:"now"`
}

func (*Fairshare) Type() MessageType { return FairshareType }

// FairshareUsage is the usage charged to one entity. Entities without a
// row have the minimum usage, 1 (as in OpenPBS).
type FairshareUsage struct {
	Entity string  `json:"entity"`
	Usage  float64 `json:"usage"`
}

// FairshareClock is when usage was last decayed by the timer (0: never;
// the first tick starts the clock).
type FairshareClock struct {
	ID        string `json:"id"`
	LastDecay int64  `json:"last_decay"`
}

const (
	tableFSUsage = "fairshare_usage"
	tableFSClock = "fairshare_clock"
	fsClockID    = "clock"
	// maxFairshareUsage bounds a usage set by hand (finite, far above any
	// real figure).
	maxFairshareUsage = 1e18
)

func fsUsageSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableFSUsage, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Entity"}},
	}}
}

func fsClockSchema() *memdb.TableSchema {
	return &memdb.TableSchema{Name: tableFSClock, Indexes: map[string]*memdb.IndexSchema{
		"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "ID"}},
	}}
}

func (w *writer) fairshare(c *Fairshare) any {
	cfg := w.meta().Config
	fs := cfg.Sched.Fairshare
	switch c.Op {
	case FairshareTick:
		decayTime, factor := fs.Decay()
		clock := first[FairshareClock](w.txn, tableFSClock, "id", fsClockID)
		if clock == nil || clock.LastDecay == 0 {
			// The first tick starts the schedule; it never decays at once.
			w.must(w.txn.Insert(tableFSClock, &FairshareClock{ID: fsClockID, LastDecay: c.Now}))
			return nil
		}
		if c.Now < clock.LastDecay {
			// A new leader whose clock is behind the last decay waits for
			// it: restarting the schedule from its time would move it.
			return nil
		}
		periods := (c.Now - clock.LastDecay) / decayTime
		if periods <= 0 {
			return nil
		}
		w.decayAll(math.Pow(factor, float64(min(periods, 1000))))
		w.must(w.txn.Insert(tableFSClock, &FairshareClock{ID: fsClockID, LastDecay: clock.LastDecay + periods*decayTime}))
	case FairshareDecay:
		_, factor := fs.Decay()
		w.decayAll(factor)
	case FairshareSet:
		if c.Entity == "" || len(c.Entity) > 256 || math.IsNaN(c.Usage) || c.Usage < 0 || c.Usage > maxFairshareUsage {
			return model.Errorf(model.PBSEBadAttrVal, ": fairshare usage %v of %q", c.Usage, c.Entity)
		}
		w.setUsage(c.Entity, c.Usage)
	case FairshareTrim:
		known := map[string]bool{}
		if fs != nil {
			nodes, _ := model.ParseShareTree(fs.Tree)
			for _, n := range nodes {
				known[n.Name] = true
			}
		}
		for _, u := range w.usages() {
			if !known[u.Entity] {
				w.must(w.txn.Delete(tableFSUsage, u))
			}
		}
	case FairshareReset:
		for _, u := range w.usages() {
			w.must(w.txn.Delete(tableFSUsage, u))
		}
	default:
		return model.Errorf(model.PBSEInvalidRequest, ": fairshare operation %q", c.Op)
	}
	return nil
}

// decayAll multiplies every usage by f; usage that falls to the minimum
// (1) is forgotten, so the table holds only entities with recent usage.
func (w *writer) decayAll(f float64) {
	for _, u := range w.usages() {
		w.setUsage(u.Entity, u.Usage*f)
	}
}

func (w *writer) setUsage(entity string, usage float64) {
	old := first[FairshareUsage](w.txn, tableFSUsage, "id", entity)
	if usage <= 1 {
		if old != nil {
			w.must(w.txn.Delete(tableFSUsage, old))
		}
		return
	}
	w.must(w.txn.Insert(tableFSUsage, &FairshareUsage{Entity: entity, Usage: usage}))
}

func (w *writer) usages() []*FairshareUsage {
	return collectUsage(w.txn)
}

// chargeFairshare adds what j used between two resources_used reports to
// its entity (model.FairshareCharge). Usage is charged whether or not
// fair_share orders jobs, so turning it on starts from real history.
//
// Charging starts with the decay clock: the leader's first tick, which it
// proposes only once every voter applies command level 3 (server/levels.go).
// During a rolling upgrade a server of an earlier release applies the same
// JobEvents without charging; gating on replicated state that only exists
// once every server charges keeps all servers' usage identical.
func (w *writer) chargeFairshare(j *model.Job, old, cur map[string]string) {
	if first[FairshareClock](w.txn, tableFSClock, "id", fsClockID) == nil {
		return
	}
	cfg := w.meta().Config
	fs := cfg.Sched.Fairshare
	amount := model.FairshareCharge(fs.Resource(), j, old, cur, cfg.Defs)
	if amount <= 0 {
		return
	}
	entity := model.FairshareEntityOf(j, fs.EntityKind())
	if entity == "" {
		return
	}
	usage := 1.0
	if u := first[FairshareUsage](w.txn, tableFSUsage, "id", entity); u != nil {
		usage = u.Usage
	}
	w.setUsage(entity, min(usage+amount, maxFairshareUsage))
}

func collectUsage(txn *memdb.Txn) []*FairshareUsage {
	it, err := txn.Get(tableFSUsage, "id")
	if err != nil {
		return nil
	}
	var out []*FairshareUsage
	for raw := it.Next(); raw != nil; raw = it.Next() {
		out = append(out, raw.(*FairshareUsage))
	}
	sort.Slice(out, func(i, k int) bool { return out[i].Entity < out[k].Entity })
	return out
}

// FairshareUsage returns the usage of every entity that has more than the
// minimum, by entity name.
func (s *StateSnapshot) FairshareUsage() map[string]float64 {
	out := map[string]float64{}
	for _, u := range collectUsage(s.txn) {
		out[u.Entity] = u.Usage
	}
	return out
}

// FairshareLastDecay is when the timer last decayed usage (0: never).
func (s *StateSnapshot) FairshareLastDecay() int64 {
	if c := first[FairshareClock](s.txn, tableFSClock, "id", fsClockID); c != nil {
		return c.LastDecay
	}
	return 0
}

func (s *StateSnapshot) persistFairshare(write func(kind string, v any) error) error {
	for _, u := range collectUsage(s.txn) {
		if err := write("fsusage", u); err != nil {
			return err
		}
	}
	if c := first[FairshareClock](s.txn, tableFSClock, "id", fsClockID); c != nil {
		return write("fsclock", c)
	}
	return nil
}
