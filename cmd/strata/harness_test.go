//go:build e2e

package main

// End-to-end tests: they build the real binary, start real server and agent
// processes with `strata cluster start`, and drive the PBS commands exactly
// as a user would, checking what a user sees (stdout, stderr, exit codes,
// output files).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/cmd/clustercmd"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "strata-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// Tests run commands as unprivileged users too.
	os.Chmod(dir, 0o755)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "strata"), ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build strata:", err)
		os.Exit(1)
	}
	// The agents start each job's shepherd from next to their executable,
	// static as make builds it.
	build = exec.Command("go", "build", "-o", filepath.Join(dir, "strata-shepherd"), "../strata-shepherd")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build strata-shepherd:", err)
		os.Exit(1)
	}
	for _, l := range []string{"qsub", "qstat", "qdel", "qhold", "qrls", "qalter", "qsig", "qselect", "qmove", "qrerun", "qrun", "qorder", "tracejob", "pbsnodes", "qmgr", "pbs_rsub", "pbs_rstat", "pbs_rdel", "pbs_ralter", "pbsfs"} {
		os.Symlink("strata", filepath.Join(dir, l))
	}
	// The job's files are delivered as the job's owner; the tests' temp
	// directories must be reachable by unprivileged users too.
	code := m.Run()
	killLeftovers(dir)
	os.RemoveAll(dir)
	os.Exit(code)
}

// clusterDirs records every cluster directory this test process created.
var clusterDirs struct {
	sync.Mutex
	dirs []string
}

// killLeftovers ends, with their whole sessions (jobs included), all
// processes started from this test binary's copy of strata or from one of
// its clusters, so a test that died before its cleanup leaves nothing.
func killLeftovers(binDir string) {
	clusterDirs.Lock()
	marks := append([]string{binDir + "/"}, clusterDirs.dirs...)
	clusterDirs.Unlock()
	clustercmd.KillSessions(clustercmd.SessionsMatching(marks...), syscall.SIGKILL)
}

// cluster is a running local cluster.
type cluster struct {
	t    *testing.T
	dir  string
	work string
	env  []string
}

// startCluster starts a cluster of moms agents with ncpus each.
func startCluster(t *testing.T, moms, ncpus int) *cluster {
	t.Helper()
	return newCluster(t, moms, ncpus, "")
}

// newCluster starts a cluster; serverTOML, when set, is appended to the
// generated server configuration. Cleanup is registered before the start,
// so a failed start leaves no process behind.
func newCluster(t *testing.T, moms, ncpus int, serverTOML string) *cluster {
	t.Helper()
	c, base := prepareCluster(t, "strata-e2e-", []string{"server1.log", "node1.log", "node2.log"}, 3000)
	args := []string{"cluster", "start", "--dir", c.dir, "--moms", fmt.Sprint(moms),
		"--ncpus", fmt.Sprint(ncpus), "--mem", "4gb", "--name", "e2e"}
	if serverTOML != "" {
		extra := filepath.Join(base, "extra.toml")
		if err := os.WriteFile(extra, []byte(serverTOML), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--server-config", extra)
	}
	out, err := exec.Command(filepath.Join(binDir, "strata"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster start: %v\n%s", err, out)
	}
	c.env = append(os.Environ(),
		"PATH="+binDir+":"+os.Getenv("PATH"),
		"STRATA_SOCKET="+filepath.Join(c.dir, "server1", "strata.sock"),
		"PBS_SERVER=e2e",
	)
	return c
}

// prepareCluster makes the directories of a cluster the test is about to
// start (reachable by the unprivileged users tests run commands as),
// records them for killLeftovers, and registers the cleanup: stop the
// cluster, show the tail of each named log if the test failed, remove it.
// Registered before the start, so a failed start leaves nothing behind.
func prepareCluster(t *testing.T, prefix string, logs []string, tailBytes int) (*cluster, string) {
	t.Helper()
	base, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(base, 0o755)
	c := &cluster{t: t, dir: filepath.Join(base, "cluster"), work: filepath.Join(base, "work")}
	os.MkdirAll(c.work, 0o777)
	os.Chmod(c.work, 0o777)
	clusterDirs.Lock()
	clusterDirs.dirs = append(clusterDirs.dirs, base+"/")
	clusterDirs.Unlock()
	t.Cleanup(func() {
		exec.Command(filepath.Join(binDir, "strata"), "cluster", "stop", "--dir", c.dir).Run()
		if t.Failed() {
			for _, log := range logs {
				b, _ := os.ReadFile(filepath.Join(c.dir, log))
				t.Logf("--- %s ---\n%s", log, tail(string(b), tailBytes))
			}
		}
		os.RemoveAll(base)
	})
	return c, base
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// result is what a command printed and how it exited.
type result struct {
	stdout, stderr string
	code           int
}

// run runs a command of the cluster as root, in the work directory.
func (c *cluster) run(name string, args ...string) result {
	return c.runAs(nil, "", name, args...)
}

// runWithInput runs a command with stdin.
func (c *cluster) runWithInput(stdin, name string, args ...string) result {
	return c.runAs(nil, stdin, name, args...)
}

// runAs runs a command with the given credentials (nil: as the test).
func (c *cluster) runAs(cred *syscall.Credential, stdin, name string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Env, cmd.Dir = c.env, c.work
	cmd.Stdin = strings.NewReader(stdin)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// must runs a command that must succeed and returns its stdout.
func (c *cluster) must(name string, args ...string) string {
	c.t.Helper()
	r := c.run(name, args...)
	if r.code != 0 {
		c.t.Fatalf("%s %v: exit %d\nstdout: %s\nstderr: %s", name, args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// submit writes a script and qsubs it, returning the job id.
func (c *cluster) submit(script string, args ...string) string {
	c.t.Helper()
	f, err := os.CreateTemp(c.work, "job*.sh")
	if err != nil {
		c.t.Fatal(err)
	}
	f.WriteString(script)
	f.Close()
	os.Chmod(f.Name(), 0o644)
	id := strings.TrimSpace(c.must("qsub", append(args, f.Name())...))
	if !strings.HasSuffix(id, ".e2e") {
		c.t.Fatalf("qsub printed %q, want an id ending in .e2e", id)
	}
	return id
}

// job reads one job through qstat -xf -F json.
func (c *cluster) job(id string) map[string]any {
	c.t.Helper()
	r := c.run("qstat", "-x", "-f", "-F", "json", id)
	if r.code != 0 {
		c.t.Fatalf("qstat -xf %s: exit %d: %s", id, r.code, r.stderr)
	}
	var doc struct {
		Jobs map[string]map[string]any `json:"Jobs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		c.t.Fatalf("qstat -F json output: %v\n%s", err, r.stdout)
	}
	return doc.Jobs[id]
}

// waitState polls until the job reaches one of the states.
func (c *cluster) waitState(id string, timeout time.Duration, states ...string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var j map[string]any
	for time.Now().Before(deadline) {
		j = c.job(id)
		for _, s := range states {
			if j["job_state"] == s {
				return j
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("job %s did not reach %v within %s; last: state=%v comment=%v", id, states, timeout, j["job_state"], j["comment"])
	return nil
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pidOf reads the pid of a cluster process.
func (c *cluster) pidOf(name string) int {
	b, err := os.ReadFile(filepath.Join(c.dir, name+".pid"))
	if err != nil {
		c.t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	return pid
}

// kill9 kills a cluster process with SIGKILL and waits until it is gone.
func (c *cluster) kill9(name string) {
	c.t.Helper()
	pid := c.pidOf(name)
	syscall.Kill(pid, syscall.SIGKILL)
	waitFor(c.t, 10*time.Second, name+" to die", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(b), ") Z")
	})
}

// restart runs `strata cluster start` again, which restarts dead processes.
func (c *cluster) restart() {
	c.t.Helper()
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "start", "--dir", c.dir).CombinedOutput()
	if err != nil {
		c.t.Fatalf("cluster restart: %v\n%s", err, out)
	}
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return fmt.Sprint(int64(x))
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
