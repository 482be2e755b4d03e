package mom

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// shepherdEnv makes the test binary act as the shepherd: the agent under
// test re-executes this binary instead of "strata mom-shepherd".
const shepherdEnv = "STRATA_MOM_TEST_SHEPHERD"

// shepherdCommand is the shepherd command line for tests: a copy of the
// test binary in a world-readable directory, so that the delivery helper
// can run it as an unprivileged user.
var shepherdCommand []string

func TestMain(m *testing.M) {
	// Fuzz workers are this binary re-executed by `go test -fuzz` with the
	// environment set below; they must run the fuzz target, not a shepherd.
	if os.Getenv(shepherdEnv) == "1" && !fuzzWorker() {
		os.Exit(ShepherdMain(os.Args[1:]))
	}
	code, err := runTests(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

func runTests(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "mom-test-bin")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		return 0, err
	}
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	bin := filepath.Join(dir, "mom.test")
	if err := copyFile(self, bin, 0o755); err != nil {
		return 0, err
	}
	shepherdCommand = []string{bin}
	if err := setupTestPKI(dir); err != nil {
		return 0, err
	}
	os.Setenv(shepherdEnv, "1")
	return m.Run(), nil
}

func fuzzWorker() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzzworker") {
			return true
		}
	}
	return false
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// worldDir is a temporary directory everyone may traverse (t.TempDir is
// 0700), for tests where the job runs as another user.
func worldDir(t *testing.T, perm os.FileMode) string {
	t.Helper()
	d, err := os.MkdirTemp("", "mom-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, perm); err != nil {
		t.Fatal(err)
	}
	return d
}

// testJob is a job for this host running the given script as the current
// user, with output going to outDir.
func testJob(id, script, outDir string) *model.Job {
	seq, _, _ := strings.Cut(id, ".")
	return &model.Job{
		ID:       id,
		Name:     "t" + seq,
		User:     "tester",
		UID:      os.Getuid(),
		GID:      os.Getgid(),
		State:    model.StateRunning,
		Substate: model.SubPrerun,
		Queue:    "workq",
		Output:   "testhost:" + filepath.Join(outDir, "t.o"+seq),
		Error:    "testhost:" + filepath.Join(outDir, "t.e"+seq),
		Shell:    "/bin/sh",
		Script:   script,
		Env: []model.EnvVar{
			{Name: "PBS_O_WORKDIR", Value: outDir},
			{Name: "PBS_O_HOST", Value: "submithost.example"},
			{Name: "PBS_O_QUEUE", Value: "workq"},
		},
		ResourceList: map[string]string{"ncpus": "2"},
		Select:       model.Select{{Count: 1, Res: []model.ResReq{{Name: "ncpus", Value: "2"}, {Name: "mpiprocs", Value: "2"}}}},
		Exec: []model.ExecChunk{{
			Shares:   []model.VnodeShare{{Vnode: "testhost", Host: "testhost.example", Amounts: map[string]float64{"ncpus": 2}}},
			MPIProcs: 2,
		}},
		RunCount: 1,
	}
}

// runShepherd runs one job under a real shepherd process, synchronously,
// and returns its result.
func runShepherd(t *testing.T, spoolDir string, j *model.Job, killDelay time.Duration) *Result {
	t.Helper()
	return runShepherdWith(t, spoolDir, j, killDelay, nil)
}

// runShepherdWith is runShepherd with the launch parameters adjusted by
// adjust (nil: as the agent writes them for a plain host).
func runShepherdWith(t *testing.T, spoolDir string, j *model.Job, killDelay time.Duration, adjust func(*launchParams)) *Result {
	t.Helper()
	sp := spool{root: spoolDir}
	if err := sp.init(); err != nil {
		t.Fatal(err)
	}
	dir := sp.jobDir(j.ID, j.RunCount)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeJSONAtomic(filepath.Join(dir, fileJob), j, 0o600); err != nil {
		t.Fatal(err)
	}
	// TMPDIR's parent is sticky and world-writable, as /var/tmp.
	lp := launchParams{Host: "testhost", Spool: spoolDir, TmpDir: worldDir(t, os.ModeSticky|0o777), KillDelayMs: killDelay.Milliseconds(), SelfCommand: shepherdCommand}
	if adjust != nil {
		adjust(&lp)
	}
	if err := writeJSONAtomic(filepath.Join(dir, fileLaunch), lp, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shepherdCommand[0], shepherdRun, dir)
	cmd.Stdin = strings.NewReader("g")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("shepherd: %v\n%s", err, out)
	}
	res, err := readResult(dir)
	if err != nil || res == nil {
		t.Fatalf("no result (%v); shepherd log:\n%s", err, out)
	}
	t.Logf("shepherd log:\n%s", out)
	return res
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
