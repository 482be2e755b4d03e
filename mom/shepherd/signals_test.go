package shepherd

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

func TestParseSignal(t *testing.T) {
	for _, c := range []struct {
		in  string
		sig syscall.Signal
		act sigAction
	}{
		{"KILL", syscall.SIGKILL, actSignal},
		{"SIGKILL", syscall.SIGKILL, actSignal},
		{"9", syscall.SIGKILL, actSignal},
		{"usr1", syscall.SIGUSR1, actSignal},
		{"SIGTERM", syscall.SIGTERM, actSignal},
		{"SIGNULL", 0, actNull},
		{"suspend", syscall.SIGSTOP, actSuspend},
		{"admin-suspend", syscall.SIGSTOP, actSuspend},
		{"resume", syscall.SIGCONT, actResume},
		{"admin-resume", syscall.SIGCONT, actResume},
		{"STOP", syscall.SIGSTOP, actSignal},
	} {
		sig, act, err := parseSignal(c.in)
		if err != nil || sig != c.sig || act != c.act {
			t.Errorf("parseSignal(%q) = %v, %v, %v; want %v, %v", c.in, sig, act, err, c.sig, c.act)
		}
	}
	for _, bad := range []string{"", "BOGUS", "99", "-1"} {
		if _, _, err := parseSignal(bad); err == nil {
			t.Errorf("parseSignal(%q) accepted", bad)
		}
	}
}

func TestRunClockExcludesSuspendedTime(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := &runClock{start: t0}
	c.pause(t0.Add(10 * time.Second))
	if got := c.elapsed(t0.Add(25 * time.Second)); got != 10*time.Second {
		t.Fatalf("elapsed while suspended = %s", got)
	}
	c.resume(t0.Add(30 * time.Second))
	if got := c.elapsed(t0.Add(35 * time.Second)); got != 15*time.Second {
		t.Fatalf("elapsed after resume = %s", got)
	}
}

// startBusyGroup starts a busy loop in its own session and returns its pid.
func startBusyGroup(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(-pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return pid
}

func TestSignalDelivererSuspendResumeOnce(t *testing.T) {
	dir := t.TempDir()
	pid := startBusyGroup(t)
	clock := &runClock{start: time.Now()}
	calls := 0
	d := &signalDeliverer{dir: dir, pgid: pid, clock: clock, logf: t.Logf,
		kill: func(p int, s syscall.Signal) error { calls++; return syscall.Kill(p, s) }}
	write := func(sigs ...model.Sig) {
		if err := WriteJSONAtomic(filepath.Join(dir, FileSignals), SignalRequests{Signals: sigs}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(model.Sig{N: 1, Signal: "suspend"})
	if !d.deliverPending(time.Now()) || !clock.suspended {
		t.Fatal("suspend did not change the clock")
	}
	waitForT(t, 5*time.Second, "the job to stop", func() bool { return procState(pid) == "T" })
	if done := readSignalsDone(dir); done.N != 1 || !done.Suspended {
		t.Fatalf("signals_done = %+v", done)
	}
	write(model.Sig{N: 1, Signal: "suspend"}, model.Sig{N: 2, Signal: "resume"}, model.Sig{N: 3, Signal: "SIGNULL"})
	d.deliverPending(time.Now())
	waitForT(t, 5*time.Second, "the job to run again", func() bool { return procState(pid) == "R" })
	if clock.suspended || calls != 3 {
		t.Fatalf("after resume: suspended=%v calls=%d", clock.suspended, calls)
	}
	// The same requests again (an agent restart rewrites the file): nothing
	// is delivered twice, and a new deliverer picks up the recorded count.
	d.deliverPending(time.Now())
	d2 := &signalDeliverer{dir: dir, pgid: pid, clock: clock, done: readSignalsDone(dir), logf: t.Logf,
		kill: func(p int, s syscall.Signal) error { calls++; return nil }}
	d2.deliverPending(time.Now())
	if calls != 3 {
		t.Fatalf("requests delivered again: %d kill calls", calls)
	}
}

func TestUsageMeterSeesBusyLoop(t *testing.T) {
	pid := startBusyGroup(t)
	m := &usageMeter{sid: pid, ncpus: "1"}
	waitForT(t, 10*time.Second, "cpu time to accumulate", func() bool {
		m.sample()
		return m.cpuTicks >= clockTicks/2
	})
	used := m.used(2 * time.Second)
	if used["walltime"] != "00:00:02" || used["ncpus"] != "1" || used["mem"] == "0kb" || used["cpupercent"] == "" {
		t.Fatalf("used = %v", used)
	}
}
