// Package metrics is the server's Prometheus instrumentation: one registry
// per server process (no global default registry), collectors that read
// the replicated state at scrape time, and the few counters that only a
// running process can know (API requests, scheduling cycles, Raft apply
// latency). docs/metrics.md lists every series.
//
// Double counting: every server holds the whole replicated state, so a
// series derived from it (jobs, vnodes, reservations, provisioning, job
// events) is exported only by the leader; a scrape of all servers sums to
// the cluster's value. Per-process series (API, Raft, leadership) are
// exported by every server. strata_server_leader tells which one leads.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/strata-hpc/strata/raftstore"
)

// Deps are what the collectors read at scrape time.
type Deps struct {
	// State returns a consistent read view of the replicated state.
	State func() *raftstore.StateSnapshot
	// IsLeader reports whether this server leads (and so exports the
	// cluster-state series).
	IsLeader func() bool
	// RaftStats returns hashicorp/raft's Stats() map; nil: no Raft series.
	RaftStats func() map[string]string
	// RaftDir is the server's raft directory (raft.db, snapshots/);
	// empty: no disk-size series.
	RaftDir string
}

// Metrics is one server's instrumentation.
type Metrics struct {
	reg  *prometheus.Registry
	deps Deps

	apiRequests *prometheus.CounterVec
	apiDuration *prometheus.HistogramVec

	cycleDuration   prometheus.Histogram
	cycleConsidered prometheus.Counter
	cycleStarted    prometheus.Counter
	cycles          prometheus.Counter

	raftApply     prometheus.Histogram
	leaderChanges prometheus.Counter

	events *jobEvents
	prov   *provObserver
}

// New builds a server's registry with every collector registered.
func New(deps Deps) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), deps: deps}
	m.apiRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "strata_api_requests_total",
		Help: "API requests served by this server, by route pattern and HTTP status.",
	}, []string{"route", "code"})
	m.apiDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "strata_api_request_duration_seconds",
		Help:    "Time to answer an API request, by route pattern (long polls included).",
		Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"route"})
	m.cycleDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "strata_scheduler_cycle_duration_seconds",
		Help:    "Duration of a scheduling cycle on the leader (planning, runjob hooks and the plan's commit).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	})
	m.cycles = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "strata_scheduler_cycles_total",
		Help: "Scheduling cycles run by this server while it led.",
	})
	m.cycleConsidered = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "strata_scheduler_jobs_considered_total",
		Help: "Queued jobs the scheduler considered, summed over cycles.",
	})
	m.cycleStarted = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "strata_scheduler_jobs_started_total",
		Help: "Run decisions the scheduler committed, summed over cycles.",
	})
	m.raftApply = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "strata_raft_apply_duration_seconds",
		Help:    "Time from proposing a command to its commit and application on this (leading) server; its count's rate is the apply rate.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})
	m.leaderChanges = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "strata_raft_leader_changes_total",
		Help: "Leader changes this server observed since it started.",
	})
	m.events = newJobEvents()
	m.prov = newProvObserver()
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.apiRequests, m.apiDuration,
		m.cycleDuration, m.cycles, m.cycleConsidered, m.cycleStarted,
		m.raftApply, m.leaderChanges,
		&leaderGated{c: m.events, leader: deps.IsLeader},
		&leaderGated{c: m.prov, leader: deps.IsLeader},
		&leaderGated{c: &stateCollector{state: deps.State}, leader: deps.IsLeader},
		&processCollector{deps: deps},
	)
	if deps.RaftDir != "" {
		m.reg.MustRegister(&diskCollector{dir: deps.RaftDir})
	}
	return m
}

// Registry is the server's registry (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveCycle records one scheduling cycle: its duration, the queued
// jobs it considered and the jobs it started.
func (m *Metrics) ObserveCycle(d time.Duration, considered, started int) {
	if m == nil {
		return
	}
	m.cycles.Inc()
	m.cycleDuration.Observe(d.Seconds())
	m.cycleConsidered.Add(float64(considered))
	m.cycleStarted.Add(float64(started))
}

// ObserveApply records the latency of one command committed through Raft.
func (m *Metrics) ObserveApply(d time.Duration) {
	if m != nil {
		m.raftApply.Observe(d.Seconds())
	}
}

// LeaderChanged counts a leadership change seen by this server.
func (m *Metrics) LeaderChanged() { m.leaderChanges.Inc() }

// leaderGated exports a collector's series only while this server leads:
// followers hold the same replicated state and would double every sum.
type leaderGated struct {
	c      prometheus.Collector
	leader func() bool
}

func (g *leaderGated) Describe(ch chan<- *prometheus.Desc) { g.c.Describe(ch) }

func (g *leaderGated) Collect(ch chan<- prometheus.Metric) {
	if g.leader != nil && g.leader() {
		g.c.Collect(ch)
	}
}

// processCollector exports this server's own Raft view and role.
type processCollector struct{ deps Deps }

var (
	descLeader  = prometheus.NewDesc("strata_server_leader", "1 when this server is the Raft leader (it alone exports the cluster-state series), else 0.", nil, nil)
	descRaftIdx = prometheus.NewDesc("strata_raft_index", "This server's Raft log positions: kind is last_log, commit, applied or last_snapshot.", []string{"kind"}, nil)
	descRaftLog = prometheus.NewDesc("strata_raft_log_entries", "Log entries after the last snapshot (what the next snapshot compacts).", nil, nil)
	descTerm    = prometheus.NewDesc("strata_raft_term", "This server's current Raft term.", nil, nil)
	descPeers   = prometheus.NewDesc("strata_raft_peers", "Other voting servers in this server's Raft configuration.", nil, nil)
)

func (p *processCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descLeader, descRaftIdx, descRaftLog, descTerm, descPeers} {
		ch <- d
	}
}

func (p *processCollector) Collect(ch chan<- prometheus.Metric) {
	leader := 0.0
	if p.deps.IsLeader != nil && p.deps.IsLeader() {
		leader = 1
	}
	ch <- prometheus.MustNewConstMetric(descLeader, prometheus.GaugeValue, leader)
	if p.deps.RaftStats == nil {
		return
	}
	st := p.deps.RaftStats()
	num := func(k string) (float64, bool) {
		v, err := strconv.ParseUint(st[k], 10, 64)
		return float64(v), err == nil
	}
	for _, kind := range []string{"last_log", "commit", "applied", "last_snapshot"} {
		if v, ok := num(kind + "_index"); ok {
			ch <- prometheus.MustNewConstMetric(descRaftIdx, prometheus.GaugeValue, v, kind)
		}
	}
	last, ok1 := num("last_log_index")
	snap, ok2 := num("last_snapshot_index")
	if ok1 && ok2 && last >= snap {
		ch <- prometheus.MustNewConstMetric(descRaftLog, prometheus.GaugeValue, last-snap)
	}
	if v, ok := num("term"); ok {
		ch <- prometheus.MustNewConstMetric(descTerm, prometheus.GaugeValue, v)
	}
	if v, ok := num("num_peers"); ok {
		ch <- prometheus.MustNewConstMetric(descPeers, prometheus.GaugeValue, v)
	}
}
