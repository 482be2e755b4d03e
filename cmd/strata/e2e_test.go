//go:build e2e

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestJobLifecycle is the tour of the README: submit a script with
// directives, watch it in qstat, find its output with the PBS environment,
// see the vnodes.
func TestJobLifecycle(t *testing.T) {
	c := startCluster(t, 2, 2)

	nodes := c.must("pbsnodes", "-a")
	for _, want := range []string{"node1\n", "node2\n", "     state = free\n", "     resources_available.ncpus = 2\n"} {
		if !strings.Contains(nodes, want) {
			t.Errorf("pbsnodes -a lacks %q:\n%s", want, nodes)
		}
	}

	id := c.submit(`#!/bin/sh
#PBS -N lifecycle
#PBS -l select=2:ncpus=1
#PBS -l place=scatter
#PBS -l walltime=00:01:00
echo "id=$PBS_JOBID name=$PBS_JOBNAME queue=$PBS_QUEUE env=$PBS_ENVIRONMENT"
echo "workdir=$PBS_O_WORKDIR ncpus=$NCPUS omp=$OMP_NUM_THREADS"
echo "pwd=$(pwd) home=$HOME"
echo "nodes=$(sort $PBS_NODEFILE | tr '\n' ' ')"
test -d "$TMPDIR" && echo tmpdir-ok
echo to-stderr >&2
exit 3
`)
	table := c.must("qstat")
	if !strings.HasPrefix(table, "Job id            Name             User              Time Use S Queue\n----------------  ---------------- ----------------  -------- - -----\n") {
		t.Errorf("qstat header:\n%s", table)
	}
	if !strings.Contains(table, id) || !strings.Contains(table, "lifecycle") {
		t.Errorf("qstat does not list %s:\n%s", id, table)
	}
	j := c.waitState(id, 30*time.Second, "F")
	if str(j["Exit_status"]) != "3" {
		t.Errorf("Exit_status = %v, want 3", j["Exit_status"])
	}
	if c.run("qstat").stdout != "" {
		t.Errorf("qstat without -x still lists the finished job")
	}
	if r := c.run("qstat", id); r.code != 35 || !strings.Contains(r.stderr, id+" Job has finished, use -x or -H to obtain historical job information") {
		t.Errorf("qstat of a finished job: exit %d stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(c.must("qstat", "-x"), id) {
		t.Errorf("qstat -x does not list %s", id)
	}
	seq := strings.SplitN(id, ".", 2)[0]
	out, err := os.ReadFile(filepath.Join(c.work, "lifecycle.o"+seq))
	if err != nil {
		t.Fatalf("output file: %v", err)
	}
	for _, want := range []string{
		"id=" + id + " name=lifecycle queue=workq env=PBS_BATCH",
		"workdir=" + c.work + " ncpus=1 omp=1",
		"nodes=node1 node2 ",
		"tmpdir-ok",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	home, _ := os.UserHomeDir()
	if !strings.Contains(string(out), "pwd="+home) {
		t.Errorf("job did not start in $HOME (%s):\n%s", home, out)
	}
	errOut, _ := os.ReadFile(filepath.Join(c.work, "lifecycle.e"+seq))
	if strings.TrimSpace(string(errOut)) != "to-stderr" {
		t.Errorf("error file = %q", errOut)
	}
}

func TestJoinAndStdinAndCommand(t *testing.T) {
	c := startCluster(t, 1, 2)
	id := strings.TrimSpace(c.runWithInput("echo out; echo err >&2\n", "qsub", "-j", "oe", "-N", "joined").stdout)
	cmdID := strings.TrimSpace(c.must("qsub", "--", "/bin/echo", "direct", "args"))
	c.waitState(id, 30*time.Second, "F")
	c.waitState(cmdID, 30*time.Second, "F")
	out, _ := os.ReadFile(filepath.Join(c.work, "joined.o"+strings.SplitN(id, ".", 2)[0]))
	if !strings.Contains(string(out), "out") || !strings.Contains(string(out), "err") {
		t.Errorf("-j oe output = %q", out)
	}
	if _, err := os.Stat(filepath.Join(c.work, "joined.e"+strings.SplitN(id, ".", 2)[0])); err == nil {
		t.Errorf("-j oe still wrote an error file")
	}
	out, _ = os.ReadFile(filepath.Join(c.work, "STDIN.o"+strings.SplitN(cmdID, ".", 2)[0]))
	if strings.TrimSpace(string(out)) != "direct args" {
		t.Errorf("qsub -- output = %q", out)
	}
}

func TestWalltimeIsEnforced(t *testing.T) {
	c := startCluster(t, 1, 1)
	id := c.submit("sleep 60\n", "-l", "walltime=2")
	j := c.waitState(id, 40*time.Second, "F")
	if str(j["Exit_status"]) != "-29" {
		t.Errorf("Exit_status = %v, want -29", j["Exit_status"])
	}
	// The comment says it once; the job's .e file says it in PBS's words.
	if n := strings.Count(str(j["comment"]), "exceeded resource walltime"); n != 1 {
		t.Errorf("comment = %v", j["comment"])
	}
	e, _ := os.ReadFile(strings.TrimPrefix(str(j["Error_Path"]), str(j["Submit_Host"])+":"))
	if !regexp.MustCompile(`^=>> PBS: job killed: walltime [23] exceeded limit 2\n$`).Match(e) {
		t.Errorf(".e file = %q", e)
	}
}

func TestQdel(t *testing.T) {
	c := startCluster(t, 1, 1)
	running := c.submit("sleep 60\n")
	queued := c.submit("sleep 60\n") // 1 cpu: waits behind the first
	c.waitState(running, 20*time.Second, "R")
	waitFor(t, 20*time.Second, "the first job to start", func() bool { return str(c.job(running)["substate"]) == "42" })
	if r := c.run("qdel", queued, running); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("qdel: %+v", r)
	}
	j := c.waitState(running, 30*time.Second, "F")
	if str(j["Exit_status"]) != "271" || str(j["substate"]) != "91" {
		t.Errorf("deleted running job: Exit_status %v substate %v", j["Exit_status"], j["substate"])
	}
	if j := c.job(queued); j["job_state"] != "F" || str(j["substate"]) != "91" {
		t.Errorf("deleted queued job: %v/%v", j["job_state"], j["substate"])
	}
	if r := c.run("qdel", "999"); r.code != 153 || r.stderr != "qdel: Unknown Job Id 999.e2e\n" {
		t.Errorf("qdel unknown: %+v", r)
	}
	if r := c.run("qdel", "abc"); r.code != 1 || !strings.Contains(r.stderr, "illegally formed job identifier: abc") {
		t.Errorf("qdel malformed: %+v", r)
	}
}

// TestBadInput checks that every kind of bad input gets a PBS-style message
// on stderr, nothing on stdout and a non-zero exit.
func TestBadInput(t *testing.T) {
	c := startCluster(t, 1, 1)
	script := filepath.Join(c.work, "ok.sh")
	os.WriteFile(script, []byte("true\n"), 0o644)
	noWrite := filepath.Join(c.work, "readonly")
	os.Mkdir(noWrite, 0o555)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-l", "select=2:ncpus", script}, 2, "qsub: illegal -l value"},
		{[]string{"-l", "walltime=1:xx", script}, 166, "qsub: Illegal attribute or resource value Resource_List.walltime"},
		{[]string{"-l", "mem=12parsecs", script}, 166, "qsub: Illegal attribute or resource value Resource_List.mem"},
		{[]string{"-l", "select=1:ncpus=1", "-l", "place=sideways", script}, 0, "qsub: Illegal attribute or resource value Resource_List.place"},
		{[]string{"-l", "foo=1", script}, 187, "qsub: Unknown resource Resource_List.foo"},
		{[]string{"-l", "select=1:foo=1", script}, 187, "qsub: Unknown resource: foo"},
		{[]string{"-q", "nosuchq", script}, 170, "qsub: Unknown queue"},
		{[]string{filepath.Join(c.work, "missing.sh")}, 1, "qsub: script file:: No such file or directory"},
		{[]string{"-o", filepath.Join(noWrite, "out"), script}, 1, "qsub: cannot write output"},
	}
	for _, tc := range cases {
		// root can write anywhere; check the unwritable directory as nobody.
		var r result
		if strings.Contains(strings.Join(tc.args, " "), noWrite) {
			r = c.runAs(&syscall.Credential{Uid: 65534, Gid: 65534}, "", "qsub", tc.args...)
		} else {
			r = c.run("qsub", tc.args...)
		}
		if r.code == 0 || (tc.code != 0 && r.code != tc.code) || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
			t.Errorf("qsub %v: exit %d (want %d) stderr %q (want %q) stdout %q", tc.args, r.code, tc.code, r.stderr, tc.msg, r.stdout)
		}
	}
	if r := c.run("qstat", "12345"); r.code != 153 || r.stderr != "qstat: Unknown Job Id 12345.e2e\n" {
		t.Errorf("qstat unknown: %+v", r)
	}
	if r := c.run("qstat", "1x"); r.code == 0 || !strings.Contains(r.stderr, "illegally formed job identifier: 1x") {
		t.Errorf("qstat malformed: %+v", r)
	}
	if r := c.run("pbsnodes"); r.code != 1 || r.stderr == "" {
		t.Errorf("pbsnodes without args: %+v", r)
	}
	// A server that is not running.
	dead := append([]string(nil), c.env...)
	dead = append(dead, "STRATA_SOCKET="+filepath.Join(c.work, "nothing.sock"))
	saved := c.env
	c.env = dead
	r := c.run("qsub", script)
	c.env = saved
	if r.code == 0 || !regexp.MustCompile(`^qsub: cannot connect to server e2e \(errno=\d+\)\n$`).MatchString(r.stderr) {
		t.Errorf("qsub with no server: %+v", r)
	}
}

// TestUsersTouchOnlyTheirOwnJobs checks identity from peer credentials: an
// unprivileged user's job runs as that user, and that user may not delete
// root's job.
func TestUsersTouchOnlyTheirOwnJobs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as two users")
	}
	c := startCluster(t, 1, 2)
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	rootJob := c.submit("sleep 30\n")
	r := c.runAs(nobody, "", "qdel", rootJob)
	if r.code != 159 || r.stderr != "qdel: Unauthorized Request  "+rootJob+"\n" {
		t.Errorf("nobody deleting root's job: %+v", r)
	}
	r = c.runAs(nobody, "id -u > uid.txt\n", "qsub", "-N", "mine")
	if r.code != 0 {
		t.Fatalf("nobody's qsub: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	j := c.waitState(id, 30*time.Second, "F")
	if !strings.HasPrefix(str(j["Job_Owner"]), "nobody@") {
		t.Errorf("Job_Owner = %v", j["Job_Owner"])
	}
	if r := c.runAs(nobody, "", "qdel", "-x", id); r.code != 0 {
		t.Errorf("nobody purging own job: %+v", r)
	}
	c.must("qdel", rootJob)
}

// TestServerKilledMidSubmission kills the server with SIGKILL while
// submissions are in flight: every job id qsub printed must exist after the
// restart, and no submission may have produced two jobs.
func TestServerKilledMidSubmission(t *testing.T) {
	c := startCluster(t, 1, 1)
	const workers, each = 4, 25
	var mu sync.Mutex
	acked := map[string]string{} // job id -> unique name
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				name := fmt.Sprintf("w%di%d", w, i)
				r := c.run("qsub", "-h", "-N", name, "--", "/bin/true")
				if r.code == 0 {
					mu.Lock()
					acked[strings.TrimSpace(r.stdout)] = name
					mu.Unlock()
				}
			}
		}(w)
	}
	waitFor(t, 20*time.Second, "some submissions", func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) > 10 })
	c.kill9("server1")
	c.restart()
	wg.Wait()
	// After the restart every submission must succeed again.
	for i := 0; i < 5; i++ {
		name := fmt.Sprintf("after%d", i)
		acked[strings.TrimSpace(c.must("qsub", "-h", "-N", name, "--", "/bin/true"))] = name
	}
	out := c.must("qstat", "-x", "-f", "-F", "json")
	names := map[string]int{}
	for _, m := range regexp.MustCompile(`"Job_Name":\s*"([^"]+)"`).FindAllStringSubmatch(out, -1) {
		names[m[1]]++
	}
	for id, name := range acked {
		if !strings.Contains(out, `"`+id+`"`) {
			t.Errorf("acknowledged job %s (%s) lost", id, name)
		}
	}
	for name, n := range names {
		if n > 1 {
			t.Errorf("submission %s produced %d jobs", name, n)
		}
	}
	t.Logf("%d of %d submissions were acknowledged around the crash", len(acked)-5, workers*each)
}

// TestAgentKilledMidJob kills an agent while its job runs; the restarted
// agent reattaches and the job finishes exactly once.
func TestAgentKilledMidJob(t *testing.T) {
	c := startCluster(t, 1, 1)
	marker := filepath.Join(c.work, "runs")
	id := c.submit(fmt.Sprintf("echo run >> %s\nsleep 3\nexit 7\n", marker))
	waitFor(t, 20*time.Second, "the job to start", func() bool { return str(c.job(id)["substate"]) == "42" })
	c.kill9("node1")
	c.restart()
	j := c.waitState(id, 40*time.Second, "F")
	if str(j["Exit_status"]) != "7" || str(j["run_count"]) != "1" {
		t.Errorf("after agent restart: Exit_status %v run_count %v comment %v", j["Exit_status"], j["run_count"], j["comment"])
	}
	b, _ := os.ReadFile(marker)
	if n := strings.Count(string(b), "run"); n != 1 {
		t.Errorf("job ran %d times", n)
	}
}

// TestNodeGoesDown: an agent that stops heartbeating is marked down.
func TestNodeGoesDown(t *testing.T) {
	c := startCluster(t, 2, 1)
	c.kill9("node2")
	waitFor(t, 30*time.Second, "node2 down", func() bool {
		return strings.Contains(c.must("pbsnodes", "-av"), "node2\n     Mom = node2\n") &&
			regexp.MustCompile(`node2\n(     .*\n)*?     state = down`).MatchString(c.must("pbsnodes", "-av"))
	})
	c.restart()
	waitFor(t, 30*time.Second, "node2 back", func() bool {
		return !strings.Contains(c.must("pbsnodes", "-av"), "state = down")
	})
}

func TestClusterStatus(t *testing.T) {
	c := startCluster(t, 2, 1)
	out := c.must("strata", "cluster", "status", "--dir", c.dir, "-F", "json")
	for _, want := range []string{`"name": "server1"`, `"role": "server"`, `"name": "node2"`, `"role": "mom"`, `"state": "running"`} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %s:\n%s", want, out)
		}
	}
}

// TestQueryOtherJobs: with query_other_jobs off, a user sees only their own
// jobs, and asking for another user's job is refused.
func TestQueryOtherJobs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as two users")
	}
	c := newCluster(t, 1, 1, "query_other_jobs = false\n")
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	rootJob := c.submit("sleep 30\n", "-h")
	if r := c.runAs(nobody, "", "qstat"); r.code != 0 || r.stdout != "" {
		t.Errorf("nobody sees other users' jobs: %+v", r)
	}
	if r := c.runAs(nobody, "", "qstat", rootJob); r.code != 159 || !strings.Contains(r.stderr, "Unauthorized Request") {
		t.Errorf("nobody asking for root's job: %+v", r)
	}
	if r := c.run("qstat"); !strings.Contains(r.stdout, rootJob) {
		t.Errorf("root does not see its own job: %+v", r)
	}
	c.must("qdel", rootJob)
}

// TestClusterCommandsReadTheDirFromTheEnvironment: after sourcing D/env,
// `strata cluster status` and `strata cluster stop` need no --dir
// (STRATA_CLUSTER_DIR names the cluster).
func TestClusterCommandsReadTheDirFromTheEnvironment(t *testing.T) {
	c := startCluster(t, 1, 1)
	cluster := func(sub string) string {
		cmd := exec.Command(filepath.Join(binDir, "strata"), "cluster", sub)
		cmd.Env = append(os.Environ(), "STRATA_CLUSTER_DIR="+c.dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("strata cluster %s: %v\n%s", sub, err, out)
		}
		return string(out)
	}
	if out := cluster("status"); !regexp.MustCompile(`server1\s+server\s+\d+\s+running\s+leader`).MatchString(out) {
		t.Fatalf("status:\n%s", out)
	}
	cluster("stop")
	if out := cluster("status"); strings.Contains(out, "running") {
		t.Fatalf("status after stop:\n%s", out)
	}
}
