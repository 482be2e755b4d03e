package mom

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

const agentTimeout = 15 * time.Second

// spoolEmpty reports whether no job record is left in the spool.
func spoolEmpty(spoolDir string) bool {
	ents, err := os.ReadDir(filepath.Join(spoolDir, "jobs"))
	return err == nil && len(ents) == 0
}

func TestAgentRunsJob(t *testing.T) {
	fs, srv := newFakeServer(t)
	spoolDir, out := t.TempDir(), t.TempDir()
	startAgent(t, srv, spoolDir)
	fs.addJob(testJob("21.srv", "echo ran\nexit 7\n", out))

	waitFor(t, agentTimeout, "ended event", func() bool { return len(fs.eventsFor("21.srv", api.EventEnded)) > 0 })
	started := fs.eventsFor("21.srv", api.EventStarted)
	if len(started) == 0 || started[0].SessionID <= 0 || started[0].Run != 1 {
		t.Fatalf("started events = %+v", started)
	}
	ended := fs.eventsFor("21.srv", api.EventEnded)[0]
	if ended.Exit != 7 || ended.Run != 1 || ended.SessionID != started[0].SessionID || ended.Used["walltime"] == "" {
		t.Fatalf("ended event = %+v", ended)
	}
	if got := readFile(t, filepath.Join(out, "t.o21")); got != "ran\n" {
		t.Errorf(".o = %q", got)
	}
	waitFor(t, agentTimeout, "spool record removal", func() bool { return spoolEmpty(spoolDir) })
	if r := fs.lastRegistration(); r.Host != "testhost" || r.BootID == "" || len(r.Vnodes) != 1 || r.Vnodes[0].Name != "testhost" || r.Vnodes[0].Resources["ncpus"] == "" {
		t.Errorf("registration = %+v", r)
	}
}

func TestAgentReattachesAfterRestart(t *testing.T) {
	fs, srv := newFakeServer(t)
	spoolDir, out := t.TempDir(), t.TempDir()
	flag := filepath.Join(out, "go-on")
	// The job waits for the test's flag file, so it is certainly running
	// while the agent is replaced.
	script := "while [ ! -e " + flag + " ]; do sleep 0.05; done\necho finished\nexit 5\n"
	first := startAgent(t, srv, spoolDir)
	fs.addJob(testJob("22.srv", script, out))
	waitFor(t, agentTimeout, "started event", func() bool { return len(fs.eventsFor("22.srv", api.EventStarted)) > 0 })
	first.stop(t)

	dir := filepath.Join(spoolDir, "jobs", recordKey("22.srv", 1))
	if !shepherdAlive(dir) {
		t.Fatal("shepherd died with the agent")
	}
	regs := fs.registrationCount()
	startAgent(t, srv, spoolDir)
	waitFor(t, agentTimeout, "second registration", func() bool { return fs.registrationCount() > regs })
	if jobs := fs.lastRegistration().Jobs; len(jobs) != 1 || jobs[0] != "22.srv" {
		t.Fatalf("registration after restart lists jobs %q, want [22.srv]", jobs)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, agentTimeout, "spool record removal", func() bool { return spoolEmpty(spoolDir) })
	ended := fs.eventsFor("22.srv", api.EventEnded)
	if len(ended) != 1 || ended[0].Exit != 5 {
		t.Fatalf("ended events = %+v, want exactly one with exit 5", ended)
	}
	if got := readFile(t, filepath.Join(out, "t.o22")); got != "finished\n" {
		t.Errorf(".o = %q", got)
	}
}

func TestAgentReportsUnknownRunningJobLost(t *testing.T) {
	fs, srv := newFakeServer(t)
	spoolDir, out := t.TempDir(), t.TempDir()
	startAgent(t, srv, spoolDir)
	j := testJob("23.srv", "touch "+filepath.Join(out, "ran")+"\n", out)
	j.Substate = model.SubRunning
	fs.addJob(j)

	waitFor(t, agentTimeout, "failed event", func() bool { return len(fs.eventsFor("23.srv", api.EventFailed)) > 0 })
	ev := fs.eventsFor("23.srv", "")
	if len(ev) != 1 || ev[0].Exit != model.ExitInitAbort || ev[0].Run != 1 {
		t.Fatalf("events = %+v, want one failed with exit %d", ev, model.ExitInitAbort)
	}
	if !spoolEmpty(spoolDir) {
		t.Error("a spool record was created for a lost job")
	}
	if _, err := os.Stat(filepath.Join(out, "ran")); !os.IsNotExist(err) {
		t.Error("the lost job was started")
	}
}

func TestAgentKillsDeletedJob(t *testing.T) {
	fs, srv := newFakeServer(t)
	spoolDir, out := t.TempDir(), t.TempDir()
	startAgent(t, srv, spoolDir)
	fs.addJob(testJob("24.srv", "sleep 30\n", out))
	waitFor(t, agentTimeout, "started event", func() bool { return len(fs.eventsFor("24.srv", api.EventStarted)) > 0 })
	fs.update("24.srv", func(j *model.Job) { j.SetKillRequested(true) })
	waitFor(t, agentTimeout, "ended event", func() bool { return len(fs.eventsFor("24.srv", api.EventEnded)) > 0 })
	// sh dies on SIGTERM: 256 + 15.
	if ev := fs.eventsFor("24.srv", api.EventEnded)[0]; ev.Exit != 271 {
		t.Fatalf("exit = %d, want 271", ev.Exit)
	}
}

func TestAgentRegistersAgainWhenForgotten(t *testing.T) {
	fs, srv := newFakeServer(t)
	startAgent(t, srv, t.TempDir())
	waitFor(t, agentTimeout, "registration", func() bool { return fs.registrationCount() == 1 })
	fs.mu.Lock()
	fs.forgetHost = true
	fs.mu.Unlock()
	waitFor(t, agentTimeout, "registration again", func() bool { return fs.registrationCount() == 2 })
}

func TestAgentRecoversDeadShepherdAsLost(t *testing.T) {
	fs, srv := newFakeServer(t)
	spoolDir, out := t.TempDir(), t.TempDir()
	// A record whose shepherd is gone (as after a reboot): the job must be
	// reported failed with ExitInitAbort, never run again.
	j := testJob("25.srv", "touch "+filepath.Join(out, "ran")+"\n", out)
	j.Substate = model.SubRunning
	sp := spool{root: spoolDir}
	if err := sp.init(); err != nil {
		t.Fatal(err)
	}
	dir := sp.jobDir(j.ID, j.RunCount)
	if err := os.Mkdir(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := writeJSONAtomic(filepath.Join(dir, fileJob), j, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeJSONAtomic(filepath.Join(dir, fileShepherd), shepherdRecord{Pid: os.Getpid(), StartTime: 1, BootID: "another-boot"}, 0o644); err != nil {
		t.Fatal(err)
	}
	fs.addJob(j)
	startAgent(t, srv, spoolDir)
	waitFor(t, agentTimeout, "spool record removal", func() bool { return spoolEmpty(spoolDir) })
	ev := fs.eventsFor("25.srv", "")
	if len(ev) != 1 || ev[0].Kind != api.EventFailed || ev[0].Exit != model.ExitInitAbort {
		t.Fatalf("events = %+v", ev)
	}
	if _, err := os.Stat(filepath.Join(out, "ran")); !os.IsNotExist(err) {
		t.Error("the lost job was run again")
	}
}
