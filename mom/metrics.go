package mom

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/strata-hpc/strata/internal/metricshttp"
)

// agentMetrics is the agent's Prometheus registry (one per agent process,
// no global default registry): its contact with the server and the jobs
// it supervises, served on metrics_addr (docs/metrics.md).
type agentMetrics struct {
	reg *prometheus.Registry
	// lastContact is when the server last accepted a registration or a
	// heartbeat (unix nanoseconds; 0: never).
	lastContact atomic.Int64
	beats       *prometheus.CounterVec
}

var (
	descBeatAge = prometheus.NewDesc("strata_agent_heartbeat_age_seconds", "Seconds since the server last accepted this agent's registration or heartbeat (absent before the first).", nil, nil)
	descRunning = prometheus.NewDesc("strata_agent_jobs_running", "Job runs this agent supervises that have not ended.", nil, nil)
	descAgentUp = prometheus.NewDesc("strata_agent_info", "Always 1; host labels the agent's host name.", []string{"host"}, nil)
	// The job cgroups' usage, summed over running jobs (no job ids: the
	// endpoint carries counts only). Absent when jobs get no cgroups.
	descCgJobs = prometheus.NewDesc("strata_agent_cgroup_jobs", "Running jobs whose cgroup this agent reads; mode is v1 or v2.", []string{"mode"}, nil)
	descCgCPU  = prometheus.NewDesc("strata_agent_cgroup_cpu_seconds", "CPU seconds used so far by the running jobs' cgroups (exited processes included), summed; falls when a job ends.", nil, nil)
	descCgMem  = prometheus.NewDesc("strata_agent_cgroup_memory_bytes", "Memory the running jobs' cgroups use now (memory.current, or memory.usage_in_bytes on v1), summed.", nil, nil)
	descCgPeak = prometheus.NewDesc("strata_agent_cgroup_memory_peak_bytes", "Highest memory use of each running job's cgroup, summed.", nil, nil)
	descCgOOM  = prometheus.NewDesc("strata_agent_cgroup_oom_kills", "Processes the kernel killed for exceeding their job's memory limit, summed over running jobs.", nil, nil)
)

func newAgentMetrics(a *Agent) *agentMetrics {
	m := &agentMetrics{reg: prometheus.NewRegistry()}
	m.beats = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "strata_agent_heartbeats_total",
		Help: "Heartbeats sent to the server, by outcome (ok, error).",
	}, []string{"outcome"})
	m.beats.WithLabelValues("ok")
	m.beats.WithLabelValues("error")
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.beats,
		&agentCollector{a: a, m: m},
	)
	return m
}

// contact records the outcome of a registration or heartbeat.
func (m *agentMetrics) contact(heartbeat bool, err error) {
	if m == nil {
		return
	}
	if err == nil {
		m.lastContact.Store(time.Now().UnixNano())
	}
	if heartbeat {
		outcome := "ok"
		if err != nil {
			outcome = "error"
		}
		m.beats.WithLabelValues(outcome).Inc()
	}
}

// agentCollector reads the agent's state at scrape time.
type agentCollector struct {
	a *Agent
	m *agentMetrics
}

func (c *agentCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descBeatAge
	ch <- descRunning
	ch <- descAgentUp
	for _, d := range []*prometheus.Desc{descCgJobs, descCgCPU, descCgMem, descCgPeak, descCgOOM} {
		ch <- d
	}
}

func (c *agentCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(descAgentUp, prometheus.GaugeValue, 1, c.a.cfg.Host)
	if last := c.m.lastContact.Load(); last != 0 {
		ch <- prometheus.MustNewConstMetric(descBeatAge, prometheus.GaugeValue, time.Since(time.Unix(0, last)).Seconds())
	}
	c.a.mu.Lock()
	running := 0
	var cgs []*jobCgroup
	for _, r := range c.a.jobs {
		if r.result == nil {
			running++
			if cg := c.a.cgroups.Job(filepath.Base(r.dir)); cg != nil {
				cgs = append(cgs, cg)
			}
		}
	}
	c.a.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descRunning, prometheus.GaugeValue, float64(running))
	if c.a.cgroups != nil && len(c.a.cgroups.Dirs) > 0 {
		cgroupUsage(ch, c.a.cgroups.Mode, cgs) // files read outside the agent's lock
	}
}

// cgroupUsage sums the job cgroups' counters.
func cgroupUsage(ch chan<- prometheus.Metric, mode string, cgs []*jobCgroup) {
	var cpuNs, mem, peak, ooms uint64
	for _, cg := range cgs {
		if v, ok := cg.CPUNanos(); ok {
			cpuNs += v
		}
		if v, ok := cg.MemCurrent(); ok {
			mem += v
		}
		if v, ok := cg.MemPeak(); ok {
			peak += v
		}
		ooms += cg.OOMKills()
	}
	ch <- prometheus.MustNewConstMetric(descCgJobs, prometheus.GaugeValue, float64(len(cgs)), mode)
	ch <- prometheus.MustNewConstMetric(descCgCPU, prometheus.GaugeValue, float64(cpuNs)/1e9)
	ch <- prometheus.MustNewConstMetric(descCgMem, prometheus.GaugeValue, float64(mem))
	ch <- prometheus.MustNewConstMetric(descCgPeak, prometheus.GaugeValue, float64(peak))
	ch <- prometheus.MustNewConstMetric(descCgOOM, prometheus.GaugeValue, float64(ooms))
}

// serveMetrics serves /metrics on metrics_addr over plain HTTP until ctx
// ends; the page carries counts only, no job names or owners.
func (a *Agent) serveMetrics(ctx context.Context) error {
	if a.cfg.MetricsAddr == "" {
		return nil
	}
	addr, err := metricshttp.Serve(ctx, a.cfg.MetricsAddr, promhttp.HandlerFor(a.metrics.reg, promhttp.HandlerOpts{Registry: a.metrics.reg}), a.logger)
	if err != nil {
		return err
	}
	a.logger.Printf("metrics on http://%s/metrics", addr)
	return nil
}
