package mom

import (
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

func TestShepherdExitStatusAndOutput(t *testing.T) {
	out := t.TempDir()
	j := testJob("11.srv", "echo hello\necho oops >&2\nexit 3\n", out)
	res := runShepherd(t, t.TempDir(), j, time.Second)
	if res.Kind != api.EventEnded || res.Exit != 3 {
		t.Fatalf("result = %+v, want ended with exit 3", res)
	}
	if res.SessionID <= 0 {
		t.Errorf("session id = %d", res.SessionID)
	}
	if got := readFile(t, filepath.Join(out, "t.o11")); got != "hello\n" {
		t.Errorf(".o = %q", got)
	}
	if got := readFile(t, filepath.Join(out, "t.e11")); got != "oops\n" {
		t.Errorf(".e = %q", got)
	}
	for _, k := range []string{"walltime", "cput", "mem", "ncpus"} {
		if res.Used[k] == "" {
			t.Errorf("resources_used.%s missing: %v", k, res.Used)
		}
	}
	if res.Used["ncpus"] != "2" || !strings.HasSuffix(res.Used["mem"], "kb") {
		t.Errorf("resources_used = %v", res.Used)
	}
}

func TestShepherdKilledBySignal(t *testing.T) {
	out := t.TempDir()
	res := runShepherd(t, t.TempDir(), testJob("12.srv", "kill -9 $$\n", out), time.Second)
	if res.Exit != 265 {
		t.Fatalf("exit = %d, want 265", res.Exit)
	}
}

func TestShepherdEnvironment(t *testing.T) {
	out := t.TempDir()
	envFile := filepath.Join(out, "env.txt")
	script := "env > " + envFile + "\n" +
		"pwd > " + filepath.Join(out, "pwd.txt") + "\n" +
		"test -d \"$TMPDIR\" && test -w \"$TMPDIR\" && echo tmpok > " + filepath.Join(out, "tmp.txt") + "\n" +
		"cat \"$PBS_NODEFILE\" > " + filepath.Join(out, "nodes.txt") + "\n"
	j := testJob("13.srv", script, out)
	j.Account = "proj42"
	spoolDir := t.TempDir()
	res := runShepherd(t, spoolDir, j, time.Second)
	if res.Exit != 0 {
		t.Fatalf("exit = %d (%s)", res.Exit, res.Comment)
	}
	env := map[string]string{}
	for _, line := range strings.Split(readFile(t, envFile), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil {
		t.Fatal(err)
	}
	home := u.HomeDir
	want := map[string]string{
		"PBS_JOBID":       "13.srv",
		"PBS_JOBNAME":     "t13",
		"PBS_QUEUE":       "workq",
		"PBS_O_WORKDIR":   out,
		"PBS_O_HOST":      "submithost.example",
		"PBS_ENVIRONMENT": "PBS_BATCH",
		"PBS_JOBDIR":      home,
		"PBS_ACCOUNT":     "proj42",
		"NCPUS":           "2",
		"OMP_NUM_THREADS": "2",
		"HOME":            home,
		"USER":            u.Username,
		"LOGNAME":         u.Username,
		"SHELL":           "/bin/sh",
		"PATH":            "/usr/local/bin:/usr/bin:/bin", // the shepherd's default
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if filepath.Base(env["TMPDIR"]) != "pbs.13.srv" {
		t.Errorf("TMPDIR = %q", env["TMPDIR"])
	}
	if filepath.Dir(env["PBS_NODEFILE"]) != filepath.Join(filepath.Dir(env["TMPDIR"]), "pbs.aux") || filepath.Base(env["PBS_NODEFILE"]) != "13.srv" {
		t.Errorf("PBS_NODEFILE = %q", env["PBS_NODEFILE"])
	}
	if got := readFile(t, filepath.Join(out, "nodes.txt")); got != "testhost\ntesthost\n" {
		t.Errorf("node file = %q", got)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(out, "pwd.txt"))); got != home {
		t.Errorf("start directory = %q, want %q", got, home)
	}
	if got := readFile(t, filepath.Join(out, "tmp.txt")); got != "tmpok\n" {
		t.Errorf("TMPDIR not usable: %q", got)
	}
	if _, err := os.Stat(env["TMPDIR"]); !os.IsNotExist(err) {
		t.Errorf("TMPDIR not removed at the end: %v", err)
	}
	if _, err := os.Stat(env["PBS_NODEFILE"]); !os.IsNotExist(err) {
		t.Errorf("node file not removed at the end: %v", err)
	}
}

func TestShepherdWalltime(t *testing.T) {
	out := t.TempDir()
	// The job ignores SIGTERM, so only the SIGKILL after kill_delay ends it.
	j := testJob("14.srv", "trap '' TERM\nsleep 30\nsleep 30\n", out)
	j.ResourceList["walltime"] = "00:00:01"
	start := time.Now()
	res := runShepherd(t, t.TempDir(), j, 300*time.Millisecond)
	if res.Exit != model.ExitKillWalltime {
		t.Fatalf("exit = %d, want %d", res.Exit, model.ExitKillWalltime)
	}
	// The comment is the server's (from the exit status); the owner reads
	// PBS's message in the job's stderr.
	if strings.Contains(res.Comment, "walltime") {
		t.Errorf("comment = %q, want the server to word it", res.Comment)
	}
	if got := readFile(t, filepath.Join(out, "t.e14")); !regexp.MustCompile(`^=>> PBS: job killed: walltime [12] exceeded limit 1\n$`).MatchString(got) {
		t.Errorf("stderr = %q", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("job took %s to be killed", d)
	}
}

func TestShepherdJoinOE(t *testing.T) {
	out := t.TempDir()
	j := testJob("15.srv", "echo out\necho err >&2\n", out)
	j.Join = "oe"
	res := runShepherd(t, t.TempDir(), j, time.Second)
	if res.Exit != 0 {
		t.Fatalf("exit = %d", res.Exit)
	}
	if got := readFile(t, filepath.Join(out, "t.o15")); got != "out\nerr\n" {
		t.Errorf(".o = %q", got)
	}
	if _, err := os.Stat(filepath.Join(out, "t.e15")); !os.IsNotExist(err) {
		t.Errorf(".e file exists with -j oe: %v", err)
	}
}

func TestShepherdArgv(t *testing.T) {
	out := t.TempDir()
	j := testJob("16.srv", "", out)
	j.Argv = []string{"echo", "direct", "$HOME"} // no shell: $HOME stays literal
	res := runShepherd(t, t.TempDir(), j, time.Second)
	if res.Exit != 0 {
		t.Fatalf("exit = %d (%s)", res.Exit, res.Comment)
	}
	if got := readFile(t, filepath.Join(out, "t.o16")); got != "direct $HOME\n" {
		t.Errorf(".o = %q", got)
	}
}

func TestShepherdUndeliverable(t *testing.T) {
	out := t.TempDir()
	j := testJob("17.srv", "echo lost\n", out)
	j.Output = "testhost:/nonexistent-dir/t.o17"
	spoolDir := t.TempDir()
	res := runShepherd(t, spoolDir, j, time.Second)
	if res.Exit != 0 || !strings.Contains(res.Comment, "Output file could not be delivered") {
		t.Fatalf("result = %+v", res)
	}
	if got := readFile(t, filepath.Join(spoolDir, "undelivered", "17.srv.OU")); got != "lost\n" {
		t.Errorf("undelivered file = %q", got)
	}
}

func TestShepherdRunsAsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch credentials")
	}
	const nobody = 65534
	spoolDir := worldDir(t, 0o755)
	out := worldDir(t, 0o777)
	j := testJob("18.srv", "id -u\nid -g\necho $HOME\ntouch $TMPDIR/x && echo tmpok\n", out)
	j.UID, j.GID, j.User = nobody, nobody, "nobody"
	res := runShepherd(t, spoolDir, j, time.Second)
	if res.Exit != 0 {
		t.Fatalf("result = %+v", res)
	}
	path := filepath.Join(out, "t.o18")
	got := readFile(t, path)
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 4 || lines[0] != "65534" || lines[1] != "65534" || lines[3] != "tmpok" {
		t.Fatalf("job output = %q", got)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if uid := st.Sys().(*syscall.Stat_t).Uid; uid != nobody {
		t.Errorf("output file owned by uid %d, want %d (delivered as the user)", uid, nobody)
	}
}

func TestShepherdRefusesOtherUserWhenNotRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may run any user's job")
	}
	out := t.TempDir()
	j := testJob("19.srv", "echo no\n", out)
	j.UID = os.Getuid() + 1
	res := runShepherd(t, t.TempDir(), j, time.Second)
	if res.Kind != api.EventFailed || res.Exit != model.ExitFailUID {
		t.Fatalf("result = %+v", res)
	}
}

// TestShepherdDeliveryRefusesSymlinkAttack performs the attack the
// in-process delivery must stop: a user points their Output_Path at a
// symlink to a root-owned file. The root shepherd opens the destination
// with the user's file-system identity, so the victim file is untouched and
// the output is kept as undelivered.
func TestShepherdDeliveryRefusesSymlinkAttack(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch credentials")
	}
	const nobody = 65534
	victim := filepath.Join(worldDir(t, 0o755), "victim")
	if err := os.WriteFile(victim, []byte("root's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := worldDir(t, 0o777)
	link := filepath.Join(out, "t.o20")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	spoolDir := worldDir(t, 0o755)
	j := testJob("20.srv", "echo overwritten\n", out)
	j.UID, j.GID, j.User = nobody, nobody, "nobody"
	j.Output = "testhost:" + link
	res := runShepherd(t, spoolDir, j, time.Second)
	if res.Exit != 0 || !strings.Contains(res.Comment, "Output file could not be delivered") {
		t.Fatalf("result = %+v", res)
	}
	if got := readFile(t, victim); got != "root's\n" {
		t.Fatalf("the user's symlink let the shepherd write a root file: %q", got)
	}
	if got := readFile(t, filepath.Join(spoolDir, "undelivered", "20.srv.OU")); got != "overwritten\n" {
		t.Errorf("undelivered file = %q", got)
	}
}

// TestShepherdDevNullInPlace: -o/-e /dev/null are written in place (as
// Keep_Files d): no transfer helper runs (one that cannot start would
// leave a delivery failure in the comment), nothing is kept as
// undelivered, and the job ends normally.
func TestShepherdDevNullInPlace(t *testing.T) {
	out := t.TempDir()
	j := testJob("21.srv", "echo gone\necho gone too >&2\n", out)
	j.Output, j.Error = "testhost:/dev/null", "/dev/null"
	spoolDir := t.TempDir()
	res := runShepherdWith(t, spoolDir, j, time.Second, func(lp *launchParams) {
		lp.SelfCommand = []string{"/bin/false"}
	})
	if res.Exit != 0 || res.Comment != "" {
		t.Fatalf("result = %+v", res)
	}
	if ents, _ := os.ReadDir(filepath.Join(spoolDir, "undelivered")); len(ents) != 0 {
		t.Errorf("undelivered files: %v", ents)
	}
	// The same job with a file destination does need the helper.
	j = testJob("22.srv", "echo kept\n", out)
	res = runShepherdWith(t, t.TempDir(), j, time.Second, func(lp *launchParams) {
		lp.SelfCommand = []string{"/bin/false"}
	})
	if !strings.Contains(res.Comment, "could not be delivered") {
		t.Errorf("a file destination was delivered without the helper: %+v", res)
	}
}
