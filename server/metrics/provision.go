package metrics

import (
	"context"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// provObserver turns the replicated provisioning statistics into one
// observation per finished operation: its duration by AOE, mode and
// outcome, and how long it waited for a slot. The FSM keeps only sums and
// averages per host and AOE (model.ProvStat); every change to them comes
// with a change to the operations table, whose watch wakes this observer,
// and one commit finishes at most one operation per host, so the
// difference between two looks at a row is that operation.
//
// Every server observes (each applies the same entries); only the leader
// exports (leaderGated), so a new leader's histograms already hold what it
// applied as a follower.
type provObserver struct {
	duration *prometheus.HistogramVec
	wait     *prometheus.HistogramVec

	mu     sync.Mutex
	primed bool
	ops    map[string]model.ProvOp   // host -> operation seen last
	stats  map[string]model.ProvStat // key -> row seen last
}

// provBuckets span a quick application switch to a long OS reimage.
var provBuckets = prometheus.ExponentialBuckets(1, 2, 14) // 1s .. ~2.3h

func newProvObserver() *provObserver {
	return &provObserver{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "strata_provision_duration_seconds",
			Help:    "Finished provisioning operations by AOE, mode (agent, server, ssh) and outcome (success, failure): seconds from the hook's start to the end (a reboot and re-registration included).",
			Buckets: provBuckets,
		}, []string{"aoe", "mode", "outcome"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "strata_provision_wait_seconds",
			Help:    "Seconds finished provisioning operations waited in the queue (max_concurrent_provision) before their hook started, by AOE and mode.",
			Buckets: provBuckets,
		}, []string{"aoe", "mode"}),
		ops:   map[string]model.ProvOp{},
		stats: map[string]model.ProvStat{},
	}
}

func (p *provObserver) Describe(ch chan<- *prometheus.Desc) {
	p.duration.Describe(ch)
	p.wait.Describe(ch)
}

func (p *provObserver) Collect(ch chan<- prometheus.Metric) {
	p.duration.Collect(ch)
	p.wait.Collect(ch)
}

// observe compares the snapshot's statistics with the last look. The
// first look only primes: what finished before this process started is in
// strata_provision_operations_completed_total, not in the histograms.
func (p *provObserver) observe(snap *raftstore.StateSnapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	stats := map[string]model.ProvStat{}
	for _, st := range snap.ProvStats() {
		stats[st.Key] = *st
		if !p.primed {
			continue
		}
		old := p.stats[st.Key]
		ok, failed := st.Successes-old.Successes, st.Failures-old.Failures
		if ok < 0 || failed < 0 || ok+failed != 1 {
			continue // nothing new, or more than one at once: no single duration to tell
		}
		op, seen := p.ops[st.Host]
		mode := op.Mode
		if !seen || op.AOE != st.AOE {
			seen = false
		}
		if mode == "" || !seen {
			mode = "unknown"
		}
		outcome, secs := "success", st.LastSecs
		if failed == 1 {
			outcome, secs = "failure", -1
			if seen && op.Started > 0 && st.LastEnded >= op.Started {
				secs = st.LastEnded - op.Started
			}
		}
		if secs >= 0 {
			p.duration.WithLabelValues(st.AOE, mode, outcome).Observe(float64(secs))
		}
		if w := st.WaitSecs - old.WaitSecs; w >= 0 && (w > 0 || (seen && op.Started > 0)) {
			p.wait.WithLabelValues(st.AOE, mode).Observe(float64(w))
		}
	}
	ops := map[string]model.ProvOp{}
	for _, op := range snap.ProvOps() {
		ops[op.Host] = *op
	}
	p.ops, p.stats, p.primed = ops, stats, true
}

// WatchProvisioning observes finished provisioning operations until ctx
// ends (run it on every server once its state exists).
func (m *Metrics) WatchProvisioning(ctx context.Context) {
	if m == nil || m.deps.State == nil {
		return
	}
	for {
		snap := m.deps.State()
		if snap == nil {
			return
		}
		ws := snap.ProvWatch()
		m.prov.observe(snap)
		if err := ws.WatchCtx(ctx); err != nil {
			return // ctx ended
		}
	}
}
