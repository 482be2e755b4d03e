package shepherd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/model"
)

// Signal requests (qsig) travel from the server to the job like this: the
// agent sees Job.Signals in its work list and writes them to the run's
// signals.json, then pokes the shepherd with SIGUSR1 (the shepherd also
// looks at the file every second, so a lost poke only delays). The
// shepherd delivers every request numbered above the highest it has
// delivered to the job's process group and records that number in
// signals_done.json. The shepherd lives as long as the job, so an agent
// restart, which writes signals.json again, delivers nothing twice. A
// requeued job's signal requests are dropped by the server, so a new run
// never receives an earlier run's signals.

// PokeSignal is what the agent sends the shepherd when new signal requests
// are waiting in signals.json.
const PokeSignal = syscall.SIGUSR1

// signalPollInterval is how often the shepherd looks at signals.json
// without a poke.
const signalPollInterval = time.Second

// SignalRequests is signals.json, written by the agent.
type SignalRequests struct {
	Signals []model.Sig `json:"signals"`
}

// signalsDone is signals_done.json, written by the shepherd.
type signalsDone struct {
	// N is the highest request number delivered in this run.
	N int `json:"n"`
	// Suspended tells whether the job is stopped by a suspend request.
	Suspended bool `json:"suspended,omitempty"`
	// SuspendedMs is the total time spent suspended so far (excluding a
	// suspension still under way).
	SuspendedMs int64 `json:"suspended_ms,omitempty"`
}

// sigAction is what a signal request does.
type sigAction int

const (
	actSignal     sigAction = iota // send the signal to the process group
	actNull                        // SIGNULL: only check the job exists
	actSuspend                     // suspend: SIGSTOP, and the walltime clock stops
	actResume                      // resume: SIGCONT, and the walltime clock runs again
	actCheckpoint                  // checkpoint for preemption, then terminate (checkpoint.go)
)

// parseSignal maps a qsig signal (a name with or without SIG, a number,
// SIGNULL, or suspend/resume and their admin- forms) to what to do.
func parseSignal(name string) (syscall.Signal, sigAction, error) {
	s := strings.TrimSpace(name)
	if isCheckpoint(s) {
		return 0, actCheckpoint, nil
	}
	switch strings.ToLower(s) {
	case "suspend", "admin-suspend":
		return syscall.SIGSTOP, actSuspend, nil
	case "resume", "admin-resume":
		return syscall.SIGCONT, actResume, nil
	case "signull", "null", "0":
		return 0, actNull, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n <= 0 || n > 64 {
			return 0, 0, fmt.Errorf("signal number %d out of range", n)
		}
		return syscall.Signal(n), actSignal, nil
	}
	up := strings.ToUpper(s)
	if !strings.HasPrefix(up, "SIG") {
		up = "SIG" + up
	}
	if sig := unix.SignalNum(up); sig != 0 {
		return sig, actSignal, nil
	}
	switch up {
	case "SIGIOT":
		return syscall.SIGABRT, actSignal, nil
	case "SIGPOLL":
		return syscall.SIGIO, actSignal, nil
	case "SIGCLD":
		return syscall.SIGCHLD, actSignal, nil
	}
	return 0, 0, fmt.Errorf("unknown signal %q", name)
}

// readSignalRequests returns the requests in signals.json sorted by number
// (none when the file does not exist).
func readSignalRequests(dir string) ([]model.Sig, error) {
	var req SignalRequests
	err := ReadJSON(filepath.Join(dir, FileSignals), &req)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sort.SliceStable(req.Signals, func(a, b int) bool { return req.Signals[a].N < req.Signals[b].N })
	return req.Signals, nil
}

// readSignalsDone returns signals_done.json (zero when absent).
func readSignalsDone(dir string) signalsDone {
	var d signalsDone
	_ = ReadJSON(filepath.Join(dir, fileSignalsDone), &d)
	return d
}

// MaxSigN is the highest request number in sigs.
func MaxSigN(sigs []model.Sig) int {
	n := 0
	for _, s := range sigs {
		if s.N > n {
			n = s.N
		}
	}
	return n
}

// runClock measures a run's walltime, which excludes suspended time.
type runClock struct {
	start     time.Time
	paused    time.Duration // completed suspensions
	pausedAt  time.Time     // start of the current suspension; zero when running
	suspended bool
}

func (c *runClock) elapsed(now time.Time) time.Duration {
	d := now.Sub(c.start) - c.paused
	if c.suspended {
		d -= now.Sub(c.pausedAt)
	}
	if d < 0 {
		d = 0
	}
	return d
}

func (c *runClock) pause(now time.Time) {
	if !c.suspended {
		c.suspended, c.pausedAt = true, now
	}
}

func (c *runClock) resume(now time.Time) {
	if c.suspended {
		c.paused += now.Sub(c.pausedAt)
		c.suspended, c.pausedAt = false, time.Time{}
	}
}

// signalDeliverer delivers a run's signal requests to its process group.
type signalDeliverer struct {
	dir   string
	pgid  int
	clock *runClock
	done  signalsDone
	logf  func(format string, args ...any)
	// kill is syscall.Kill; tests replace it.
	kill func(pid int, sig syscall.Signal) error
	// cg, when set, is the job's cgroup: its processes that left the
	// process group get the signal too.
	cg *JobCgroup
	// checkpoint runs a checkpoint request (checkpoint.go); nil: skipped.
	checkpoint func()
}

// deliverPending reads signals.json and delivers the requests not yet
// delivered, in order. It reports whether the suspend state changed.
func (d *signalDeliverer) deliverPending(now time.Time) (changed bool) {
	sigs, err := readSignalRequests(d.dir)
	if err != nil {
		d.logf("signal requests: %v", err)
		return false
	}
	delivered := false
	for _, s := range sigs {
		if s.N <= d.done.N {
			continue
		}
		if d.deliver(s, now) {
			changed = true
		}
		d.done.N = s.N
		delivered = true
	}
	if delivered {
		d.done.Suspended = d.clock.suspended
		d.done.SuspendedMs = d.clock.paused.Milliseconds()
		if err := WriteJSONAtomic(filepath.Join(d.dir, fileSignalsDone), d.done, 0o600); err != nil {
			d.logf("record delivered signals: %v", err)
		}
	}
	return changed
}

// deliver sends one request; it reports whether the suspend state changed.
func (d *signalDeliverer) deliver(s model.Sig, now time.Time) bool {
	sig, act, err := parseSignal(s.Signal)
	if err != nil {
		d.logf("signal request %d: %v; skipped", s.N, err)
		return false
	}
	send := func(sig syscall.Signal) {
		if err := d.kill(-d.pgid, sig); err != nil {
			d.logf("signal request %d (%s) to process group %d: %v", s.N, s.Signal, d.pgid, err)
			return
		}
		if d.cg != nil && sig != 0 {
			d.cg.signalOutside(d.pgid, sig)
		}
		d.logf("signal request %d: %s delivered to process group %d", s.N, s.Signal, d.pgid)
	}
	switch act {
	case actNull:
		send(0)
	case actSuspend:
		if d.clock.suspended {
			d.logf("signal request %d: job already suspended", s.N)
			return false
		}
		send(syscall.SIGSTOP)
		d.clock.pause(now)
		return true
	case actCheckpoint:
		if d.checkpoint != nil {
			d.checkpoint()
		}
	case actResume:
		send(syscall.SIGCONT)
		if d.clock.suspended {
			d.clock.resume(now)
			return true
		}
	default:
		send(sig)
	}
	return false
}
