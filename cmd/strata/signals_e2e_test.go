//go:build e2e

package main

// End-to-end tests of qsig delivery, live resources_used and Keep_Files,
// observed on the real job processes.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// procState is the state letter of a process in /proc ("" when gone).
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// readPid waits for a job to write its pid to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, 30*time.Second, "the job to write its pid", func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

func resourcesUsed(j map[string]any, name string) string {
	if m, ok := j["resources_used"].(map[string]any); ok {
		return str(m[name])
	}
	return ""
}

// TestQsigSuspendResumeUsageAndAgentRestart drives a busy job: USR1 reaches
// its trap exactly once, suspend stops every process of the job (state T in
// /proc) and resume runs them again, qstat shows the cpu time used while
// it runs, and an agent restart re-delivers nothing.
func TestQsigSuspendResumeUsageAndAgentRestart(t *testing.T) {
	c := startCluster(t, 1, 2)
	pidFile := filepath.Join(c.work, "pid")
	childFile := filepath.Join(c.work, "child")
	usr1File := filepath.Join(c.work, "usr1")
	id := c.submit(fmt.Sprintf(`#!/bin/sh
trap 'echo usr1 >> %s' USR1
sh -c 'trap "" USR1; while :; do :; done' &
echo $! > %s
echo $$ > %s
while :; do sleep 0.1; done
`, usr1File, childFile, pidFile), "-N", "sigs")
	waitFor(t, 90*time.Second, "the job to run", func() bool { return str(c.job(id)["substate"]) == "42" })
	pid := readPid(t, pidFile)
	child := readPid(t, childFile)
	if sess := str(c.job(id)["session_id"]); sess != strconv.Itoa(pid) {
		t.Errorf("session_id = %s, want the job pid %d", sess, pid)
	}

	c.must("qsig", "-s", "USR1", id)
	waitFor(t, 15*time.Second, "the USR1 trap to run", func() bool {
		b, _ := os.ReadFile(usr1File)
		return string(b) == "usr1\n"
	})

	// Live usage: the busy child burns cpu, and qstat shows it.
	waitFor(t, 30*time.Second, "cput to be reported", func() bool {
		cput := resourcesUsed(c.job(id), "cput")
		return cput != "" && cput != "00:00:00"
	})
	j := c.job(id)
	if resourcesUsed(j, "walltime") == "" || !strings.HasSuffix(resourcesUsed(j, "mem"), "kb") {
		t.Errorf("resources_used while running: %v", j["resources_used"])
	}
	row := ""
	for _, l := range strings.Split(c.must("qstat", id), "\n") {
		if strings.HasPrefix(l, strings.SplitN(id, ".", 2)[0]) {
			row = l
		}
	}
	if f := strings.Fields(row); len(f) < 6 || !strings.HasPrefix(f[3], "00:0") || f[3] == "00:00:00" || f[4] != "R" {
		t.Errorf("qstat row while running: %q", row)
	}

	c.must("qsig", "-s", "suspend", id)
	waitFor(t, 15*time.Second, "the job's processes to stop", func() bool {
		return procState(pid) == "T" && procState(child) == "T"
	})
	if j := c.job(id); j["job_state"] != "S" {
		t.Errorf("state after suspend: %v", j["job_state"])
	}
	c.must("qsig", "-s", "resume", id)
	waitFor(t, 15*time.Second, "the job's processes to run again", func() bool {
		s, cs := procState(pid), procState(child)
		return s != "T" && s != "" && cs == "R"
	})
	c.waitState(id, 10*time.Second, "R")
	c.must("qsig", "-s", "SIGNULL", id)

	// A restarted agent writes the requests again; none is delivered twice.
	c.kill9("node1")
	c.restart()
	// Requests are delivered in order, so a re-delivery of the first USR1
	// would land before this second one: seeing exactly two proves none.
	c.must("qsig", "-s", "usr1", id)
	waitFor(t, 15*time.Second, "a second USR1 after the restart", func() bool {
		b, _ := os.ReadFile(usr1File)
		return strings.Count(string(b), "usr1") >= 2
	})
	if b, _ := os.ReadFile(usr1File); string(b) != "usr1\nusr1\n" {
		t.Errorf("USR1 delivered again after the agent restart: %q", b)
	}
	if s := procState(child); s != "R" {
		t.Errorf("after the agent restart the busy child is in state %q", s)
	}

	c.must("qsig", "-s", "KILL", id)
	j = c.waitState(id, 30*time.Second, "F")
	if str(j["Exit_status"]) != "265" {
		t.Errorf("Exit_status after qsig -s KILL = %v, want 265", j["Exit_status"])
	}
	if cput := resourcesUsed(j, "cput"); cput == "" || cput == "00:00:00" {
		t.Errorf("final cput = %q", cput)
	}
}

// TestSuspendedTimeIsNotWalltime: a job suspended for most of its run does
// not exceed a walltime its wall-clock duration exceeds.
func TestSuspendedTimeIsNotWalltime(t *testing.T) {
	c := startCluster(t, 1, 1)
	id := c.submit("#!/bin/sh\nsleep 9\necho done\n", "-l", "walltime=00:00:07", "-N", "susp")
	waitFor(t, 90*time.Second, "the job to run", func() bool { return str(c.job(id)["substate"]) == "42" })
	c.must("qsig", "-s", "suspend", id)
	// The scenario itself: stay suspended long enough that wall-clock time
	// passes the walltime while the job's own clock does not.
	time.Sleep(5 * time.Second)
	c.must("qsig", "-s", "resume", id)
	j := c.waitState(id, 30*time.Second, "F")
	if str(j["Exit_status"]) != "0" {
		t.Fatalf("Exit_status = %v (comment %v), want 0: suspended time counted as walltime", j["Exit_status"], j["comment"])
	}
	wall := resourcesUsed(j, "walltime")
	if wall == "" || wall >= "00:00:07" {
		t.Errorf("resources_used.walltime = %q, want the unsuspended time only", wall)
	}
}

// TestKeepFiles: -k d writes output straight to its destination while the
// job runs; -k oe keeps both files in the home directory under their
// default names.
func TestKeepFiles(t *testing.T) {
	c := startCluster(t, 1, 2)
	direct := filepath.Join(c.work, "direct.out")
	id := c.submit("#!/bin/sh\necho early\nsleep 60\n", "-k", "d", "-o", direct)
	waitFor(t, 30*time.Second, "output to appear at the destination during the run", func() bool {
		b, _ := os.ReadFile(direct)
		return string(b) == "early\n"
	})
	c.must("qdel", id)
	c.waitState(id, 30*time.Second, "F")
	if b, _ := os.ReadFile(direct); string(b) != "early\n" {
		t.Errorf("-k d output after the end = %q", b)
	}

	if os.Getuid() == 0 {
		// As another user, -k d opens the destination with that user's
		// permissions: a file it may not write is not written.
		nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
		own := filepath.Join(c.work, "nobody.out")
		r := c.runAs(nobody, "echo from-nobody\n", "qsub", "-S", "/bin/sh", "-k", "d", "-o", own)
		if r.code != 0 {
			t.Fatalf("nobody's qsub -k d: %+v", r)
		}
		c.waitState(strings.TrimSpace(r.stdout), 30*time.Second, "F")
		if st, err := os.Stat(own); err != nil || st.Sys().(*syscall.Stat_t).Uid != 65534 {
			t.Errorf("-k d file of nobody: %v %v", st, err)
		} else if b, _ := os.ReadFile(own); string(b) != "from-nobody\n" {
			t.Errorf("-k d output of nobody = %q", b)
		}
	}

	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	kept := c.submit("#!/bin/sh\necho kept-out\necho kept-err >&2\n", "-k", "oe", "-N", "keeptest")
	c.waitState(kept, 30*time.Second, "F")
	seq := strings.SplitN(kept, ".", 2)[0]
	for _, f := range []struct{ name, want string }{{"keeptest.o" + seq, "kept-out\n"}, {"keeptest.e" + seq, "kept-err\n"}} {
		path := filepath.Join(home, f.name)
		b, err := os.ReadFile(path)
		os.Remove(path)
		if err != nil || string(b) != f.want {
			t.Errorf("-k oe: %s = %q, %v", path, b, err)
		}
		if _, err := os.Stat(filepath.Join(c.work, f.name)); err == nil {
			t.Errorf("-k oe also delivered %s to the submission directory", f.name)
		}
	}
}
