package benchcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// sizes are the measurement sizes, full (`make bench`) or short (CI).
type sizes struct {
	short                                    bool
	qsubs, apiJobs, memJobs, provJobs        int
	runs, e2eJobs, aJobs, cSamples, sweepJob int
	slots                                    [][2]int // agents x cpus
	slurm                                    string   // peer directory, "" for none
	// only, when set, names the end-to-end figures to measure (a1, a8, b,
	// c, slots, slurm) and skips everything else: for working on one figure.
	only map[string]bool
}

// want says whether the end-to-end figure name is measured in this run.
func (sz sizes) want(name string) bool { return sz.only == nil || sz.only[name] }

func sizesFrom(c *cli.Context) sizes {
	sz := sizes{
		qsubs: c.Int("qsubs"), apiJobs: c.Int("api-jobs"), memJobs: c.Int("mem-jobs"), provJobs: c.Int("prov-jobs"),
		runs: c.Int("runs"), e2eJobs: c.Int("e2e-jobs"), aJobs: c.Int("a-jobs"), cSamples: c.Int("c-samples"),
		slots: parseSlots(c.String("slots")),
	}
	sz.sweepJob = max(sz.e2eJobs/2, 100)
	if c.Bool("short") {
		sz.short = true
		sz.qsubs, sz.apiJobs, sz.memJobs, sz.provJobs = 50, 500, 2000, 5
		sz.runs, sz.e2eJobs, sz.aJobs, sz.cSamples, sz.sweepJob = 1, 200, 100, 5, 100
		sz.slots = [][2]int{{8, 1}, {8, 2}}
	}
	if f := c.String("figures"); f != "" {
		sz.only = map[string]bool{}
		for _, name := range strings.Split(f, ",") {
			sz.only[strings.TrimSpace(name)] = true
		}
	}
	switch flag := c.String("slurm"); {
	case flag == "off" || (sz.short && flag == "auto"):
	case flag == "auto":
		sz.slurm = slurmPeer("")
	default:
		sz.slurm = slurmPeer(flag)
	}
	return sz
}

// parseSlots reads "8x1,8x2": agents x cpus per point of the sweep.
func parseSlots(s string) [][2]int {
	var out [][2]int
	for _, p := range strings.Split(s, ",") {
		a, c, ok := strings.Cut(strings.TrimSpace(p), "x")
		n, err1 := strconv.Atoi(a)
		m, err2 := strconv.Atoi(c)
		if ok && err1 == nil && err2 == nil && n > 0 && m > 0 {
			out = append(out, [2]int{n, m})
		}
	}
	return out
}

// e2eFigures are the end-to-end figures of one bench run, Slurm's beside
// Strata's when the peer ran.
type e2eFigures struct {
	sz          sizes
	a1, a8      []float64 // jobs/s per run
	b           []*throughputRun
	c, cQsub    []float64 // ms per sample
	sweep       []*throughputRun
	slurm       *slurmFigures
	slurmErr    error
	slurmAbsent bool
}

// endToEndFigures measures a1, a8, b, c and the slots sweep, then runs the
// Slurm peer with the same sizes.
func endToEndFigures(ctx context.Context, exe string, sz sizes) (*e2eFigures, error) {
	f := &e2eFigures{sz: sz}
	say := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	var err error
	if sz.want("a1") {
		if f.a1, err = qsubRuns(exe, 8, 2, sz.aJobs, 1, sz.runs); err != nil {
			return nil, err
		}
		say("a1 qsub, 1 loop: %.1f jobs/s (runs %v)", median(f.a1), round1(f.a1))
	}
	if sz.want("a8") {
		if f.a8, err = qsubRuns(exe, 8, 2, sz.aJobs, 8, sz.runs); err != nil {
			return nil, err
		}
		say("a8 qsub, 8 loops: %.1f jobs/s (runs %v)", median(f.a8), round1(f.a8))
	}
	for r := 0; sz.want("b") && r < sz.runs; r++ {
		run, err := endToEnd(ctx, exe, 8, 2, sz.e2eJobs)
		if err != nil {
			return nil, err
		}
		f.b = append(f.b, run)
		say("b %d /bin/true jobs on 8x2 slots: %.1f jobs/s (server %.2f, agents %.2f, shepherds+jobs %.2f, machine %.2f ms CPU/job; qrls returned in %.2f s)", sz.e2eJobs, run.Rate, run.ServerMs, run.AgentMs, run.ShepherdMs, run.MachineMs, run.ReleaseSecs)
	}
	if sz.want("c") {
		if f.c, f.cQsub, err = submitToStart(exe, 8, 2, sz.cSamples); err != nil {
			return nil, err
		}
		say("c submit-to-start: %.1f ms (qsub alone %.1f ms)", median(f.c), median(f.cQsub))
	}
	for _, p := range sz.slots {
		if !sz.want("slots") {
			break
		}
		run, err := endToEnd(ctx, exe, p[0], p[1], sz.sweepJob)
		if err != nil {
			return nil, err
		}
		f.sweep = append(f.sweep, run)
		say("sweep %dx%d: %.1f jobs/s", p[0], p[1], run.Rate)
	}
	if sz.only["mem"] {
		// Only when named: the full report measures memory on its own cluster (bench.go).
		if _, err := memFigure(ctx, exe, sz.memJobs); err != nil {
			return nil, err
		}
	}
	if sz.slurm == "" || !sz.want("slurm") {
		f.slurmAbsent = true
		return f, nil
	}
	say("running the Slurm peer in %s (a1 a8 b c, %d runs each)", sz.slurm, sz.runs)
	f.slurm, f.slurmErr = runSlurm(sz.slurm, sz.runs, sz.aJobs, sz.e2eJobs, sz.cSamples)
	if f.slurmErr != nil {
		say("Slurm peer: %v", f.slurmErr)
	} else {
		for _, l := range f.slurm.Lines {
			say("slurm %s", l)
		}
	}
	return f, nil
}

func round1(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(int(x*10+0.5)) / 10
	}
	return out
}

func rates(runs []*throughputRun) []float64 {
	var v []float64
	for _, r := range runs {
		v = append(v, r.Rate)
	}
	return v
}

func fieldMedian(runs []*throughputRun, get func(*throughputRun) float64) float64 {
	var v []float64
	for _, r := range runs {
		v = append(v, get(r))
	}
	return median(v)
}

// write adds the end-to-end section to the report.
func (f *e2eFigures) write(b *strings.Builder) {
	if f == nil {
		return
	}
	sz := f.sz
	b.WriteString("\n## End to end, against Slurm 22.05 in the same run\n\n")
	b.WriteString("The figures of the Slurm peer (`../shared/peers/slurm`, its RESULTS.md says how each is taken), on the\n")
	b.WriteString("same shape of cluster: 8 agents x 2 cpus on loopback (16 slots on the machine's cores), real agents and\n")
	fmt.Fprintf(b, "shepherds, fresh cluster per run, medians of %d runs.\n\n", sz.runs)
	switch {
	case f.slurmAbsent:
		b.WriteString("**Slurm was not measured in this run** (no peer found, `--slurm off`, or `--short`): no ratios.\n\n")
	case f.slurmErr != nil:
		fmt.Fprintf(b, "**The Slurm peer failed in this run** (%v): no ratios.\n\n", f.slurmErr)
	}
	b.WriteString("| figure | Strata | Slurm | ratio | target |\n|---|---|---|---|---|\n")
	var sa1, sa8, sb, sc float64
	if f.slurm != nil && f.slurmErr == nil {
		sa1, sa8, sb, sc = f.slurm.A1, f.slurm.A8, f.slurm.B, f.slurm.C
	}
	row := func(name, unit string, v, slurm float64, higherBetter bool, target string) {
		sv, ratio := "not measured", "-"
		if slurm > 0 {
			sv = fmt.Sprintf("%.1f %s", slurm, unit)
			if higherBetter {
				ratio = fmt.Sprintf("%.1fx", v/slurm)
			} else {
				ratio = fmt.Sprintf("%.1fx faster", slurm/v)
			}
		}
		fmt.Fprintf(b, "| %s | %.1f %s | %s | %s | %s |\n", name, v, unit, sv, ratio, target)
	}
	row(fmt.Sprintf("a1: held submissions, qsub processes from 1 loop (%d each run)", sz.aJobs), "jobs/s", median(f.a1), sa1, true, "3x sbatch")
	row(fmt.Sprintf("a8: the same from 8 concurrent loops (%d each run)", sz.aJobs), "jobs/s", median(f.a8), sa8, true, "3x sbatch")
	row(fmt.Sprintf("b: %d `/bin/true` jobs released at once, until none is left", sz.e2eJobs), "jobs/s", median(rates(f.b)), sb, true, "10x Slurm and 150 jobs/s")
	row("c: submit-to-start on an idle cluster (exec of qsub to `date` in the job)", "ms", median(f.c), sc, false, "under 50 ms")
	b.WriteString("\nRuns and costs behind the medians:\n\n")
	fmt.Fprintf(b, "- a1 runs: %v jobs/s; a8 runs: %v jobs/s.\n", round1(f.a1), round1(f.a8))
	fmt.Fprintf(b, "- b runs: %v jobs/s. CPU per job (medians): server %.2f ms, all 8 agents %.2f ms, shepherds and the jobs they ran %.2f ms, whole machine %.2f ms (anything else the machine ran meanwhile included).\n",
		round1(rates(f.b)), fieldMedian(f.b, func(r *throughputRun) float64 { return r.ServerMs }),
		fieldMedian(f.b, func(r *throughputRun) float64 { return r.AgentMs }), fieldMedian(f.b, func(r *throughputRun) float64 { return r.ShepherdMs }),
		fieldMedian(f.b, func(r *throughputRun) float64 { return r.MachineMs }))
	fmt.Fprintf(b, "- b method: the jobs are submitted held through the API (not timed) with `-o /dev/null -e /dev/null` as Slurm's; one `qrls` process with every id releases them (%.2f s median to return), and the server's job list is polled every 50 ms until empty (Slurm's squeue every 0.25 s).\n",
		fieldMedian(f.b, func(r *throughputRun) float64 { return r.ReleaseSecs }))
	fmt.Fprintf(b, "- c: %d samples, median %.1f ms; the qsub process alone: median %.1f ms.\n", len(f.c), median(f.c), median(f.cQsub))
	if f.slurm != nil {
		b.WriteString("\nThe Slurm peer's own lines from this run:\n\n```\n")
		for _, l := range f.slurm.Lines {
			b.WriteString(l + "\n")
		}
		b.WriteString("```\n")
	}
	if len(f.sweep) > 0 {
		b.WriteString("\n### Jobs/s against slots\n\n![jobs/s against slots](perf-jobs-per-slot.png)\n\n| agents x cpus | slots | jobs | jobs/s | server ms CPU/job | agents ms CPU/job | shepherds+jobs ms CPU/job |\n|---|---|---|---|---|---|---|\n")
		for _, r := range f.sweep {
			fmt.Fprintf(b, "| %dx%d | %d | %d | %.1f | %.2f | %.2f | %.2f |\n", r.Agents, r.Ncpus, r.Agents*r.Ncpus, r.Jobs, r.Rate, r.ServerMs, r.AgentMs, r.ShepherdMs)
		}
		b.WriteString("\nAll slots share the machine's cores: beyond them, more slots only add concurrency to a CPU-bound path.\n")
	}
}

// plotData is what cmd/benchplot draws: series of (x, y) points.
type plotData struct {
	Title  string       `json:"title"`
	X      string       `json:"x"`
	Y      string       `json:"y"`
	Series []plotSeries `json:"series"`
}

type plotSeries struct {
	Name   string       `json:"name"`
	Points [][2]float64 `json:"points"`
	Line   bool         `json:"line"`
}

func writePlotData(path string, f *e2eFigures) error {
	d := plotData{Title: "End-to-end /bin/true jobs", X: "slots (agents x cpus, on the machine's cores)", Y: "jobs/s"}
	s := plotSeries{Name: "Strata", Line: true}
	for _, r := range f.sweep {
		s.Points = append(s.Points, [2]float64{float64(r.Agents * r.Ncpus), r.Rate})
	}
	d.Series = append(d.Series, s)
	if f.slurm != nil && f.slurmErr == nil {
		d.Series = append(d.Series, plotSeries{Name: "Slurm 22.05 (figure b, same run)", Points: [][2]float64{{16, f.slurm.B}}})
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// boundsGuide says what bounds each end-to-end figure, from the profiles
// of issue 12 (perf on the server, the agents and the shepherds during
// figure b; GODEBUG=inittrace=1 and perf stat on a bare process start). It
// is part of every generated report.
const boundsGuide = `
## What bounds the end-to-end figures

Where each target of issue 12 stands (the make bench run of 2026-11-27 on
the idle machine, Slurm 22.05 in the same run; the bullets below say what
bounds each):

| target | measured | met |
|---|---|---|
| b: end to end at least 10x Slurm and 150 jobs/s | 162.6 jobs/s, 11.8x (Slurm 13.8); an earlier run that day before the batched qrls: 130 jobs/s, 7.1x (Slurm 18.3) | yes in the final run; the margin is the run-to-run spread of both |
| c: idle submit-to-start under 50 ms | 30.2 ms | yes |
| a1, a8: qsub processes at least 3x sbatch | 221.7 and 403.1 jobs/s: 1.5x and 1.3x | no: see below |
| server memory under 2 KiB per queued job | 4.0 KiB RSS growth (bench cluster), 3.9 KiB on a fresh cluster, 3.0 KiB once idle; 1.5 KiB live heap in the state store | no: see "Server memory per queued job" |
| one cycle at 100,000 x 10,000 under 1 s, 1,000,000 x 50,000 under 10 s, linear | 214 ms and 2.1 s of CPU, linear (section "Scheduling cycle at cluster size") | yes |
| 100,000-subjob arrays without memory or cycle-time jumps | section "Simulated hosts at cluster size" | yes |

The sbatch figure the a1/a8 ratio divides by is not durable: slurmctld
acknowledges a submission before it reaches the disk (the peer's RESULTS.md,
figure g: 252 and 884 of 2,000 acknowledged jobs lost to a SIGKILL), while
every qsub here waits for its Raft entry's two fdatasyncs. 3x of this run's
sbatch from one loop is 452 jobs/s, 2.2 ms per loop iteration for the
shell's fork, the process start (a static Go hello world alone costs 1.1 ms
here), the durable commit (0.65 ms of fdatasync) and the reply: below what
a separate durable process per submission can reach on this machine.

Profiled with perf during figure b (8 x 2 slots, 1,000 jobs) and with
GODEBUG=inittrace=1 and perf stat on a bare ` + "`strata --version`" + `.

* **b (throughput)** is CPU on the machine's two cores. Before this work a
  job cost three Go process start-ups (the shepherd, and a helper process
  per output file to write it as the user) and five fsyncs in the agent and
  shepherd; processes of the multi-call binary took 52 % of all CPU. Then
  output went through one transfer helper per job (main's staging), none
  for /dev/null, run records were written without fsync (the result still
  is), an empty job cgroup was no longer frozen and killed, the agent's
  watcher stopped reading the shepherd's record on every file event,
  -o /dev/null was written in place, and qrls kept 16 releases in flight
  (one at a time, releasing 1,000 jobs took 12 s, as long as running them).
  That left shepherds with their jobs at 11-12.5 ms of CPU per job, two
  thirds of the machine's. The shepherd is now its own executable,
  ` + "`strata-shepherd`" + ` (cmd/strata-shepherd, package mom/shepherd), which the
  agent starts from next to its own: statically linked without cgo (the
  agent resolves the owner's uid, gid, groups, home and shell through NSS
  and passes them in the run's record) and linking nothing of the agent (no
  TLS client, Prometheus, TOML or SSH; the interactive frame protocol moved
  to server/api/ttyframe). A bare start costs 1.2 ms and 225 page faults
  against 5.4-6.3 ms and 730 for ` + "`strata mom-shepherd`" + `. Profiling the
  shepherds then showed the file system: this machine's ext4 has no
  journal, and for each new inode it skips every inode deleted in the last
  seconds (` + "`recently_deleted`" + ` in ` + "`find_inode_bit`" + `), so each file or
  directory a job created cost about 0.45 ms at 100 jobs/s, more the faster
  jobs come (28 % of the shepherds' CPU). A run now creates three fewer:
  the launch parameters travel in job.json, the shepherds share
  ` + "`<spool>/shepherd.log`" + `, and the node file and script live in one shared
  root-owned ` + "`<tmpdir>/pbs.aux`" + ` instead of a directory per job. The v1
  cgroup join reads only /proc/self/cgroup (the agent records the
  mounts), and -o /dev/null is opened without a thread switched to the
  user. Measured on the shared machine with the other helpers' load
  (load average 8-17), 500 jobs, main against this change run alternately
  four times each: shepherds with their jobs 12.0-13.7 ms -> 6.8-7.9 ms of
  CPU per job, machine 23.7-25.1 -> 15.7-20.1 ms (everything else running
  included), 78-84 -> 98-122 jobs/s. What a shepherd still costs: the Go runtime's start
  and exit (a third of it), the job's fork, TMPDIR, the node file, the
  job.pid and result.json records (the result fsynced), and the v1 cgroup
  (mkdir, join and leave, kill check and rmdir in four hierarchies). The
  next step past 150 jobs/s is one long-lived supervisor per agent that
  forks the jobs itself (no process start per job; it must survive agent
  restarts as the shepherds do). With the spool and tmpdir on a file
  system that has a journal, the inode scan above does not happen.
  Agents and server (the job path's messages): per job the agents used to
  receive 1.8-1.95 work answers and send 1.25-1.4 event requests, and the
  server committed 2.5 Raft entries (1 of them qrls's release), counted
  from ` + "`" + `strata_api_requests_total` + "`" + ` over 500 jobs. Every change to a job
  moved its host's work index, so the agent's own started, usage and
  ended reports each woke its long poll; the index now moves only for
  what the agent acts on (a run to start or changed before it started, a
  kill, a signal, a state or substate change, a run taken away other than
  by its own ended report: raftstore/workview.go), and an ended run's
  record goes at the next answer, usually the next run placed there. The
  agent looks for a job's pid 30 ms after the launch (or at its end) and
  holds a lone started report up to 30 ms for company, so a short job's
  started and ended reports go in one request and one Raft entry (the
  begin mail still goes out when both commit together), and the watcher
  wakes only for job.pid and result.json. Now 0.9 work answers, 1.05 event
  requests and 2.26 Raft entries per job; scheduling cycles stay at 0.25-0.3
  per job (one per 3-4 jobs: scheduler_min_interval coalesces the
  triggers, and a cycle over a few hundred queued jobs costs about 0.1 ms
  of the server per job). The messages alone (before the one-processor
  change below), 500 jobs by hand on the shared machine (load average 8
  to 22), main and this branch alternately: server 2.2-2.6 -> 1.9-2.2 ms
  of CPU per job; in a perf profile of one pair (samples of the server and
  agent processes only) server 2.86 -> 2.09 ms and all agents 3.74 -> 2.13
  ms, while the agents' /proc figures moved less clearly under that load. What the server spends a job on now: applying
  entries in the FSM 13 % (four job writes per job: release, run, started,
  history) and writing them to the Raft log 12 %, HTTP and TLS 19 %,
  garbage collection 11 %, Go's sysmon thread 10 %, the bench's own poll of
  the whole job list every 50 ms 8 % (0.2-0.3 ms per job; Slurm's script
  polls squeue for ids every 250 ms), the scheduling cycles 6 % and the
  releases 4.5 %. Next step: event reports of several agents in one
  entry (a whole qrls is now one entry per 500 ids, below). The agents: a third of their CPU is the Go
  runtime's sysmon thread, which polls every 20 µs while any goroutine is
  in a system call (fork and exec of the shepherd, file creation) and backs
  off only after a millisecond, so it follows the number and length of the
  agent's busy spells per job; then the launch (13 %), the scheduler of
  goroutines (12 %), the watcher's reads (7 %) and removing the run's
  record (5.5 %). The goroutine scheduler's share came from a second
  processor: each goroutine woken also woke an idle processor that spun
  looking for work; ` + "`" + `strata mom` + "`" + ` now runs on one (mom.OneProc; GOMAXPROCS
  in its environment overrides it). ` + "`" + `strata bench --figures b --runs 1
  --e2e-jobs 500` + "`" + `, main (with the static shepherd) and this change
  alternately, four pairs, load average 2.5-10, medians: server 1.90 ->
  1.64 ms, all agents 3.12 -> 2.73 ms, machine 12.6 -> 11.9 ms of CPU per
  job, 154 -> 164 jobs/s (ranges: server 1.78-2.10 -> 1.58-1.90, agents
  2.88-3.78 -> 2.34-3.04, 140-162 -> 147-173 jobs/s). The one processor
  alone, four pairs by hand: agents 3.3-5.0 -> 2.1-3.7 ms. A qrls (or
  qhold) of many ids now sends them 500 per request and the server commits
  each request's releases as one Raft entry (ReleaseJobs, command level
  6), instead of one request and one entry per id with 16 in flight:
  ` + "`" + `strata bench --figures b --runs 1 --e2e-jobs 1000 --slurm off` + "`" + `, main
  and this change alternately, four runs each, load average 3-12, medians:
  qrls of 1,000 ids returned in 2.19 s -> 0.045 s (ranges 1.78-2.70 ->
  0.03-0.06), server 2.07 -> 1.76 ms of CPU per job (1.76-2.19 ->
  1.58-1.91), 129 -> 145 jobs/s (115-152 -> 133-149).
* **a1, a8 (qsub processes)**: a qsub is one process start plus one round
  trip (the submission commits through Raft with fsync). It used to be two
  round trips, the first asking for default_qsub_arguments through a query
  that counted every job on the server; now the defaults travel with the
  submission and a stale value is refused and retried. The start: the PBS
  commands are their own binary, strata-pbs (bin/qsub and the other links
  point to it; strata qsub still works): 10.5 MB instead of 26 MB, built
  with CGO_ENABLED=0 (static: no dynamic loader, no glibc; the commands
  never look users up, the server identifies the caller), and without
  urfave/cli, whose flag lookup ran a regexp over every flag name on
  every lookup (157 us and 3,155 allocations per qsub line; the options
  now come from the getopt split: 3.7 us, 29). perf stat on the shared
  machine (load 5-16): qsub --version 4.7-5.4 ms of CPU and 680-730 page
  faults through strata, 1.2-1.8 ms and 290-320 through strata-pbs (a
  static hello world: 1.1 ms, 190); a held submission 6.0-6.9 ms and 740
  faults, now 2.1-2.9 ms and 400-475. The qsub processes' CPU per job in
  a1/a8 (fork included) fell from 6.4-7.9 to 3.0-3.9 ms. What is left of a
  qsub: Go's runtime start (a quarter: cpuid under the hypervisor, the
  cgroup CPU limit, itabs), package initialisation of net/http and
  crypto/tls (remote commands need them), growing the main goroutine's
  stack, the HTTP client's goroutines, and page faults (40 % of its
  samples). The server side: one submission at a time through the API
  takes 0.78-0.87 ms here (load 3), of which about 0.65 ms are the Raft
  log's two fdatasyncs (bolt writes the pages, then the meta page), the
  rest hand-offs between goroutines (HTTP handler, Raft leader loop, FSM,
  handler); the request path before Raft (peer credentials and the NSS
  lookup, 7 us; decoding, rules, admission) is about 5 % of the server's
  CPU per submission. bolt no longer writes its free-page list with every
  commit (NoFreelistSync; both fdatasyncs stay): 5 pages per commit
  instead of 6-9. Per qsub the server spends 1.1-1.9 ms of CPU (a new
  connection per process; about a quarter is the Go scheduler waking
  threads for those hand-offs while the server idles between requests,
  7 % rewriting server_logs/.written for every batch by open, truncate,
  write and close; it is now kept open and rewritten in place by one
  pwrite). strata bench --figures a1,a8 --a-jobs 500, main's
  binary and this one alternately in one window at load 5-8: a1 119-142
  jobs/s on main, 190-245 now; a8 163-172 on main, 337-420 now. The
  sbatch figures of the peer vary from run to run far more than ours
  (a1 77 jobs/s in its RESULTS.md, 82.8 in the run of 2026-11-26, 167.9
  in the run of 2026-11-27 on the same machine), so the ratio is only
  meaningful within one run.
* **c (submit-to-start)**: two process starts (qsub, the shepherd) and two
  Raft commits with fsync (submission, plan; the started report is not on
  the path: the job runs before it is sent) plus the agent's long-poll
  wake-up. Traced with microsecond log lines on the shared machine (load
  average 9, static shepherd): from the submission's commit to the
  shepherd's exec takes 2-4 ms: the scheduler starts a cycle within 0.2 ms
  (there is no debounce when idle: scheduler_min_interval only spaces
  consecutive cycles), plans and commits in 0.7-1.5 ms, the agent's long
  poll answers 0.2-1.4 ms later and its launch (spool record, fork and
  exec) takes 0.7-2.2 ms. The agent has usually started the shepherd
  before the qsub process has exited (qsub returns 3-5 ms after its
  submission commits); the shepherd's exec to ` + "`" + `date` + "`" + ` in the job is 12-18
  ms. Figure c follows the two process starts and the CPU contention, not
  a wait. ` + "`" + `strata bench --figures c` + "`" + ` alternately on main (with the static
  shepherd) and this change, load average 7-10: 40.5, 36.3, 45.5 ms
  against 31.2, 31.8, 32.7 ms (qsub alone 8.2-9.8 ms in both). The traced
  path to the exec is unchanged; what left the shepherd's window is the
  work the started report used to set off while the shepherd and the job
  start: a Raft entry with fsync, a scheduling cycle and a work answer to
  the agent, all on the same two cores (now the report waits for the job's
  end or 30 ms, and moves no work index).
`
