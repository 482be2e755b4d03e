package metrics

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// stateCollector derives gauges from a state snapshot at scrape time, so
// nothing in the apply path keeps counts. It exports counts by queue and
// state only, never job names, owners or ids: what qstat -B shows anyone.
type stateCollector struct {
	state func() *raftstore.StateSnapshot
}

var (
	descJobs       = prometheus.NewDesc("strata_jobs", "Unfinished jobs by queue and state (Q, H, W, R, E, B, S, ...), as qstat -B counts them.", []string{"queue", "state"}, nil)
	descVnodes     = prometheus.NewDesc("strata_vnodes", "Vnodes by state as pbsnodes shows it (free, job-busy, down,offline, provisioning, ...).", []string{"state"}, nil)
	descVnodeAOE   = prometheus.NewDesc("strata_vnodes_aoe", "Vnodes by their current AOE (\"none\" when unset).", []string{"aoe"}, nil)
	descResvs      = prometheus.NewDesc("strata_reservations", "Reservations by state (RESV_UNCONFIRMED, RESV_CONFIRMED, RESV_RUNNING, ...).", []string{"state"}, nil)
	descProvOps    = prometheus.NewDesc("strata_provision_operations", "Provisioning operations in progress by AOE, mode and state (waiting, running, rebooting).", []string{"aoe", "mode", "state"}, nil)
	descProvDone   = prometheus.NewDesc("strata_provision_operations_completed_total", "Finished provisioning operations by AOE and outcome (success, failure), from the replicated per-host statistics.", []string{"aoe", "outcome"}, nil)
	descProvWait   = prometheus.NewDesc("strata_provision_queue_wait_seconds_total", "Seconds provisioning operations waited in the queue before their hook started, summed, by AOE.", []string{"aoe"}, nil)
	descProvMean   = prometheus.NewDesc("strata_provision_estimate_seconds", "Learned provisioning time by AOE: the mean over hosts of each host's moving average of successful durations.", []string{"aoe"}, nil)
	descProvLast   = prometheus.NewDesc("strata_provision_last_duration_seconds", "Duration of the latest successful provisioning to the AOE (the longest over hosts that ended last).", []string{"aoe"}, nil)
	descVnodeHosts = prometheus.NewDesc("strata_hosts", "Hosts with at least one vnode.", nil, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descJobs, descVnodes, descVnodeAOE, descResvs, descProvOps, descProvDone, descProvWait, descProvMean, descProvLast, descVnodeHosts} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	snap := c.state()
	if snap == nil {
		return
	}
	gauges := func(d *prometheus.Desc, counts map[[3]string]int, labels int) {
		keys := make([][3]string, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i][0]+"\x00"+keys[i][1]+"\x00"+keys[i][2] < keys[j][0]+"\x00"+keys[j][1]+"\x00"+keys[j][2]
		})
		for _, k := range keys {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(counts[k]), k[:labels]...)
		}
	}

	jobs := map[[3]string]int{}
	// Every configured queue shows, empty ones with zero queued jobs, so
	// a dashboard's panel does not lose its line when a queue drains.
	cfg := snap.Config()
	for name := range cfg.Queues {
		jobs[[3]string{name, model.StateQueued}] += 0
	}
	for _, j := range snap.JobRows() {
		if !j.IsFinished() {
			jobs[[3]string{j.Queue, j.State}]++
		}
	}
	gauges(descJobs, jobs, 2)

	states, aoes, hosts := map[[3]string]int{}, map[[3]string]int{}, map[string]bool{}
	for _, v := range snap.Vnodes() {
		states[[3]string{v.State.String()}]++
		aoe := v.CurrentAOE
		if aoe == "" {
			aoe = "none"
		}
		aoes[[3]string{aoe}]++
		hosts[v.Host] = true
	}
	gauges(descVnodes, states, 1)
	gauges(descVnodeAOE, aoes, 1)
	ch <- prometheus.MustNewConstMetric(descVnodeHosts, prometheus.GaugeValue, float64(len(hosts)))

	resvs := map[[3]string]int{}
	for _, r := range snap.Reservations() {
		if r.Gone == 0 {
			resvs[[3]string{model.ResvStateLong(r.State)}]++
		}
	}
	gauges(descResvs, resvs, 1)

	ops := map[[3]string]int{}
	for _, op := range snap.ProvOps() {
		mode := op.Mode
		if mode == "" {
			mode = "unknown"
		}
		ops[[3]string{op.AOE, mode, op.State}]++
	}
	gauges(descProvOps, ops, 3)
	c.provStats(ch, snap.ProvStats())
}

// provStats aggregates the per-host provisioning statistics by AOE.
func (c *stateCollector) provStats(ch chan<- prometheus.Metric, stats []*model.ProvStat) {
	type agg struct {
		ok, failed, wait, meanSum, meanN, last, lastEnded int64
	}
	by := map[string]*agg{}
	var aoes []string
	for _, st := range stats {
		a := by[st.AOE]
		if a == nil {
			a = &agg{}
			by[st.AOE] = a
			aoes = append(aoes, st.AOE)
		}
		a.ok += st.Successes
		a.failed += st.Failures
		a.wait += st.WaitSecs
		if st.Successes > 0 {
			a.meanSum += st.MeanSecs
			a.meanN++
		}
		if st.LastEnded > a.lastEnded || (st.LastEnded == a.lastEnded && st.LastSecs > a.last) {
			a.last, a.lastEnded = st.LastSecs, st.LastEnded
		}
	}
	sort.Strings(aoes)
	for _, aoe := range aoes {
		a := by[aoe]
		ch <- prometheus.MustNewConstMetric(descProvDone, prometheus.CounterValue, float64(a.ok), aoe, "success")
		ch <- prometheus.MustNewConstMetric(descProvDone, prometheus.CounterValue, float64(a.failed), aoe, "failure")
		ch <- prometheus.MustNewConstMetric(descProvWait, prometheus.CounterValue, float64(a.wait), aoe)
		if a.meanN > 0 {
			ch <- prometheus.MustNewConstMetric(descProvMean, prometheus.GaugeValue, float64(a.meanSum)/float64(a.meanN), aoe)
			ch <- prometheus.MustNewConstMetric(descProvLast, prometheus.GaugeValue, float64(a.last), aoe)
		}
	}
}
