package metrics

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/strata-hpc/strata/model"
)

// jobEvents counts job submissions, starts and ends from the event-log
// lines the FSM emits for committed entries (the lines tracejob reads, a
// stable PBS format). Every server sees every line, so the counters are
// exported by the leader only (leaderGated); they count what this process
// applied since it started, and a new leader's counters start from what it
// saw: rate() over them is right, absolute values are per process.
type jobEvents struct {
	submitted prometheus.Counter
	started   prometheus.Counter
	ended     *prometheus.CounterVec
}

func newJobEvents() *jobEvents {
	e := &jobEvents{
		submitted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "strata_jobs_submitted_total",
			Help: "Jobs accepted into a queue (qsub), array parents counted once.",
		}),
		started: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "strata_jobs_started_total",
			Help: "Jobs sent to run (by the scheduler or qrun), subjobs counted each.",
		}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strata_jobs_ended_total",
			Help: "Job runs that ended with an exit status, by exit class: success (0), failure (1-255), signal (256+signal), pbs_error (negative: could not start, walltime, ...).",
		}, []string{"exit_class"}),
	}
	for _, c := range []string{"success", "failure", "signal", "pbs_error"} {
		e.ended.WithLabelValues(c) // present at zero from the start
	}
	return e
}

func (e *jobEvents) Describe(ch chan<- *prometheus.Desc) {
	e.submitted.Describe(ch)
	e.started.Describe(ch)
	e.ended.Describe(ch)
}

func (e *jobEvents) Collect(ch chan<- prometheus.Metric) {
	e.submitted.Collect(ch)
	e.started.Collect(ch)
	e.ended.Collect(ch)
}

// ObserveEvents counts the job lines of one applied batch; it is the
// FSM's event receiver's companion (raftstore.FSM.OnEvents).
func (m *Metrics) ObserveEvents(events []model.LogEvent) {
	if m == nil {
		return
	}
	for _, ev := range events {
		if ev.Class != "Job" {
			continue
		}
		switch msg := ev.Msg; {
		case strings.HasPrefix(msg, "Job Queued at request of"):
			m.events.submitted.Inc()
		case strings.HasPrefix(msg, "Job Run at request of Scheduler"), strings.HasPrefix(msg, "Job run by qrun"):
			m.events.started.Inc()
		case strings.HasPrefix(msg, "Exit_status="):
			m.events.ended.WithLabelValues(exitClass(msg)).Inc()
		}
	}
}

// exitClass classifies "Exit_status=N ..." as PBS reads N.
func exitClass(msg string) string {
	rest := strings.TrimPrefix(msg, "Exit_status=")
	if i := strings.IndexByte(rest, ' '); i >= 0 {
		rest = rest[:i]
	}
	n, err := strconv.Atoi(rest)
	switch {
	case err != nil || n < 0:
		return "pbs_error"
	case n == 0:
		return "success"
	case n >= 256:
		return "signal"
	}
	return "failure"
}
