package mom

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/mom/shepherd"
	"github.com/strata-hpc/strata/server/api"
)

// TestShepherdAuxDirAttack performs the attack on the shared aux
// directory: the job's owner (nobody) plants, in the sticky tmpdir, a
// directory of their own at its path holding a symlink named after the
// job to a root-owned file, hoping the root shepherd writes the node file
// through it. The shepherd replaces the planted directory, the victim is
// untouched, and the job can read but neither change nor replace its
// node file.
func TestShepherdAuxDirAttack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch credentials")
	}
	const nobody = 65534
	tmp := worldDir(t, os.ModeSticky|0o777)
	victim := filepath.Join(worldDir(t, 0o755), "victim")
	if err := os.WriteFile(victim, []byte("root's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(tmp, "pbs.aux")
	if err := os.Mkdir(planted, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(planted, "31.srv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(planted, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	out := worldDir(t, 0o777)
	j := testJob("31.srv", `cat "$PBS_NODEFILE"
echo x >> "$PBS_NODEFILE" 2>/dev/null && echo appended
rm -f "$PBS_NODEFILE" 2>/dev/null
test -f "$PBS_NODEFILE" && echo still-there
ls "$(dirname "$PBS_NODEFILE")" >/dev/null 2>&1 || echo cannot-list
`, out)
	j.UID, j.GID, j.User = nobody, nobody, "nobody"
	res := runShepherdWith(t, worldDir(t, 0o755), j, time.Second, func(lp *launchParams) { lp.TmpDir = tmp })
	if res.Exit != 0 {
		t.Fatalf("result = %+v", res)
	}
	if got := readFile(t, victim); got != "root's\n" {
		t.Errorf("victim file now %q", got)
	}
	if got := readFile(t, filepath.Join(out, "t.o31")); got != "testhost\ntesthost\nstill-there\ncannot-list\n" {
		t.Errorf("job output = %q", got)
	}
	st, err := os.Lstat(planted)
	if err != nil {
		t.Fatal(err)
	}
	if sys := st.Sys().(*syscall.Stat_t); !st.IsDir() || sys.Uid != 0 || st.Mode().Perm() != 0o711 {
		t.Errorf("aux directory: mode %v uid %d, want a root directory 0711", st.Mode(), sys.Uid)
	}
	if ents, _ := os.ReadDir(planted); len(ents) != 0 {
		t.Errorf("aux directory keeps %v after the job", ents)
	}
}

// TestShepherdUsesAgentIdentity: the shepherd (static, without NSS) runs
// the job as the identity the agent resolved through NSS: its name, home,
// shell and supplementary groups, not what /etc/passwd alone says.
func TestShepherdUsesAgentIdentity(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to set supplementary groups")
	}
	out := worldDir(t, 0o777)
	home := worldDir(t, 0o755)
	j := testJob("32.srv", "echo $USER $LOGNAME $HOME $SHELL\nid -G\npwd\n", out)
	j.Shell = ""
	id := shepherd.Identity{UID: j.UID, GID: j.GID, Groups: []uint32{uint32(j.GID), 4242}, Name: "ldapuser", Home: home, Shell: "/bin/sh"}
	res := runShepherdWith(t, worldDir(t, 0o755), j, time.Second, func(lp *launchParams) { lp.Identity = &id })
	if res.Exit != 0 {
		t.Fatalf("result = %+v", res)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(out, "t.o32"))), "\n")
	if len(lines) != 3 || lines[0] != "ldapuser ldapuser "+home+" /bin/sh" || !strings.Contains(" "+lines[1]+" ", " 4242 ") || lines[2] != home {
		t.Errorf("job saw %q", lines)
	}
}

// TestRunRecordFiles: a run's spool directory holds the records the agent
// and its shepherd share and nothing per job that could be shared (each
// file made and removed per job costs the spool's file system an inode):
// the launch parameters are inside job.json, with the owner as the agent
// resolved it, and the shepherds write to the agent's <spool>/shepherd.log.
// A kill request shows there, naming the run.
func TestRunRecordFiles(t *testing.T) {
	fs, srv := newFakeServer(t)
	spoolDir, out := t.TempDir(), t.TempDir()
	startAgent(t, srv, spoolDir)
	flag := filepath.Join(out, "running")
	fs.addJob(testJob("33.srv", "touch "+flag+"\nsleep 30\n", out))
	waitFor(t, agentTimeout, "the job running", func() bool { _, err := os.Stat(flag); return err == nil })
	dir := filepath.Join(spoolDir, "jobs", recordKey("33.srv", 1))
	// The shepherd records the job's pid after starting it, so the job
	// may touch its flag first.
	waitFor(t, agentTimeout, "job.pid", func() bool { _, err := os.Stat(filepath.Join(dir, fileJobPid)); return err == nil })
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "job.json job.pid shepherd.pid stderr stdout" {
		t.Errorf("run directory holds %q, want job.json job.pid shepherd.pid and the spooled output", got)
	}
	_, lp, err := shepherd.ReadRecord(dir)
	if err != nil || lp == nil || lp.Identity == nil || lp.Identity.UID != os.Getuid() || lp.Identity.Name == "" {
		t.Fatalf("launch parameters in job.json: %+v, %v", lp, err)
	}
	waitFor(t, agentTimeout, "started event", func() bool { return len(fs.eventsFor("33.srv", api.EventStarted)) > 0 })
	fs.update("33.srv", func(j *model.Job) { j.SetKillRequested(true) })
	waitFor(t, agentTimeout, "ended event", func() bool { return len(fs.eventsFor("33.srv", api.EventEnded)) > 0 })
	if log := readFile(t, filepath.Join(spoolDir, fileLog)); !strings.Contains(log, "shepherd 33.srv.1: ") || !strings.Contains(log, "kill requested") {
		t.Errorf("shepherd log:\n%s", log)
	}
}
