//go:build e2e

package main

// Job containment (issue 9, item 7): a job that escapes its process group
// with setsid or a double fork must not outlive qdel, walltime or its own
// end. These tests perform the escape on a real cluster and look for the
// escaped processes in /proc afterwards.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// escapeScript starts a setsid child and a double-forked child, both
// sleeping with a marker argument, then sleeps itself.
func escapeScript(marker string) string {
	return fmt.Sprintf("setsid sleep %s &\n( (sleep %s &) & )\nsleep %s\n", marker, marker, marker)
}

// uniqueMarker is a sleep argument no other test uses: 600.<n>.
func uniqueMarker() string {
	return fmt.Sprintf("600.%d", time.Now().UnixNano()%1_000_000_000)
}

// markerPids lists the live processes whose command line has marker.
func markerPids(marker string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		if st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); !strings.Contains(string(st), ") Z") {
			out = append(out, e.Name())
		}
	}
	return out
}

// cgroupCluster starts a one-node cluster whose agent uses the given
// [cgroups] table, or skips when the agent reports cgroups unavailable.
func cgroupCluster(t *testing.T, cgroupsTOML string) *cluster {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root: jobs run as nobody, and cgroups need root")
	}
	c := startCluster(t, 1, 2)
	logPath := filepath.Join(c.dir, "node1.log")
	if cgroupsTOML != "" {
		conf := filepath.Join(c.dir, "node1", "mom.toml")
		b, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(conf, append(b, "\n[cgroups]\n"+cgroupsTOML+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		before := strings.Count(readFileString(logPath), "registered host node1")
		c.kill9("node1")
		c.restart()
		waitFor(t, 20*time.Second, "node1 to register again", func() bool {
			return strings.Count(readFileString(logPath), "registered host node1") > before
		})
	}
	log := readFileString(logPath)
	if i := strings.LastIndex(log, "cgroups unavailable:"); i >= 0 && i > strings.LastIndex(log, "jobs are contained by cgroup") {
		line, _, _ := strings.Cut(log[i:], "\n")
		t.Skipf("agent has no cgroups here: %s", line)
	}
	return c
}

func readFileString(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// startEscapeJob submits the escape job as nobody and waits until its
// three sleeps run.
func startEscapeJob(t *testing.T, c *cluster, marker string, args ...string) string {
	t.Helper()
	script := filepath.Join(c.work, "escape-"+marker+".sh")
	if err := os.WriteFile(script, []byte(escapeScript(marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	// nobody's login shell is nologin.
	r := c.runAs(nobody, "", "qsub", append(append([]string{"-S", "/bin/sh"}, args...), script)...)
	if r.code != 0 {
		t.Fatalf("qsub: exit %d: %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	waitFor(t, 20*time.Second, "the job's three sleeps", func() bool { return len(markerPids(marker)) == 3 })
	return id
}

// checkNoneLeft fails when a marked process is still alive shortly after
// the job ended (the kill is synchronous; the poll only absorbs /proc lag).
func checkNoneLeft(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(markerPids(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the ended job survive: %v", markerPids(marker))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testEscapeQdel(t *testing.T, c *cluster, restartAgent bool) {
	marker := uniqueMarker()
	id := startEscapeJob(t, c, marker)
	if restartAgent {
		// The shepherd outlives the agent; the reattached run must still
		// be contained.
		c.kill9("node1")
		c.restart()
	}
	if r := c.runAs(nobody, "", "qdel", id); r.code != 0 {
		t.Fatalf("qdel: exit %d: %s", r.code, r.stderr)
	}
	j := c.waitState(id, 30*time.Second, "F")
	checkNoneLeft(t, marker)
	if str(j["Exit_status"]) != "271" {
		t.Errorf("Exit_status = %v, want 271 (SIGTERM)", j["Exit_status"])
	}
}

func testEscapeWalltime(t *testing.T, c *cluster) {
	marker := uniqueMarker()
	id := startEscapeJob(t, c, marker, "-l", "walltime=3")
	j := c.waitState(id, 30*time.Second, "F")
	checkNoneLeft(t, marker)
	if str(j["Exit_status"]) != "-29" {
		t.Errorf("Exit_status = %v, want -29 (walltime)", j["Exit_status"])
	}
}

// testEscapeRequeue: qrerun kills the first run whole; the second run
// starts with none of the first run's processes around.
func testEscapeRequeue(t *testing.T, c *cluster) {
	marker := uniqueMarker()
	id := startEscapeJob(t, c, marker, "-r", "y")
	c.must("qrerun", id)
	waitFor(t, 30*time.Second, "the second run", func() bool {
		j := c.job(id)
		return str(j["run_count"]) == "2" && j["job_state"] == "R" && len(markerPids(marker)) >= 3
	})
	// An escapee of the first run would make a fourth.
	if n := len(markerPids(marker)); n != 3 {
		t.Errorf("%d marked processes after the requeue, want the second run's 3", n)
	}
	c.must("qdel", id)
	c.waitState(id, 30*time.Second, "F")
	checkNoneLeft(t, marker)
}

func testEscapeJobEnd(t *testing.T, c *cluster) {
	marker := uniqueMarker()
	script := filepath.Join(c.work, "end-"+marker+".sh")
	// The job's own end, not a kill: the children outlive the script.
	body := fmt.Sprintf("setsid sleep %s &\n( (sleep %s &) & )\nsleep 1\nexit 0\n", marker, marker)
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.runAs(nobody, "", "qsub", "-S", "/bin/sh", script)
	if r.code != 0 {
		t.Fatalf("qsub: %s", r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	j := c.waitState(id, 30*time.Second, "F")
	checkNoneLeft(t, marker)
	if str(j["Exit_status"]) != "0" {
		t.Errorf("Exit_status = %v, want 0", j["Exit_status"])
	}
}

// TestCgroupContainmentV1 runs the escapes under the agent's default
// (auto: the v1 controllers where they are mounted) with enforce_mem on.
func TestCgroupContainmentV1(t *testing.T) {
	c := cgroupCluster(t, "mode = \"v1\"\nenforce_mem = true")
	t.Run("qdel", func(t *testing.T) { testEscapeQdel(t, c, false) })
	t.Run("walltime", func(t *testing.T) { testEscapeWalltime(t, c) })
	t.Run("end", func(t *testing.T) { testEscapeJobEnd(t, c) })
	t.Run("requeue", func(t *testing.T) { testEscapeRequeue(t, c) })
	t.Run("enforce_mem", func(t *testing.T) {
		// tail keeps its whole "line" of /dev/zero in memory.
		script := filepath.Join(c.work, "mem.sh")
		os.WriteFile(script, []byte("tail /dev/zero\n"), 0o644)
		r := c.runAs(nobody, "", "qsub", "-S", "/bin/sh", "-l", "mem=64mb", "-l", "walltime=60", script)
		if r.code != 0 {
			t.Fatalf("qsub: %s", r.stderr)
		}
		id := strings.TrimSpace(r.stdout)
		j := c.waitState(id, 40*time.Second, "F")
		if ex := str(j["Exit_status"]); ex == "0" || ex == "-29" {
			t.Errorf("Exit_status = %v, want a non-zero status from the memory kill", ex)
		}
		if !strings.Contains(str(j["comment"]), "memory limit") {
			t.Errorf("comment = %q, want the memory limit named", str(j["comment"]))
		}
	})
}

// TestCgroupContainmentV2 runs the escapes with the v2 tree (cgroup.kill),
// across an agent restart.
func TestCgroupContainmentV2(t *testing.T) {
	c := cgroupCluster(t, "mode = \"v2\"")
	t.Run("qdel", func(t *testing.T) { testEscapeQdel(t, c, true) })
	t.Run("walltime", func(t *testing.T) { testEscapeWalltime(t, c) })
}

// TestClusterStopKillsEscapedJobs: stopping a local cluster SIGKILLs its
// shepherds, which then cannot clean up; the job's escaped processes are
// found through the agent's cgroups all the same.
func TestClusterStopKillsEscapedJobs(t *testing.T) {
	c := cgroupCluster(t, "")
	marker := uniqueMarker()
	startEscapeJob(t, c, marker)
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "stop", "--dir", c.dir).CombinedOutput()
	if err != nil {
		t.Fatalf("cluster stop: %v\n%s", err, out)
	}
	checkNoneLeft(t, marker)
}
