//go:build e2e

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is a qsub -I session driven through a real pseudo-terminal, as
// a user at a keyboard drives it.
type terminal struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func (c *cluster) qsubInteractive(args ...string) *terminal {
	c.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "qsub"), append([]string{"-I"}, args...)...)
	cmd.Env = c.env
	cmd.Dir = c.work
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		c.t.Fatal(err)
	}
	term := &terminal{t: c.t, tty: tty, cmd: cmd, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { term.done <- cmd.Wait() }()
	c.t.Cleanup(func() { cmd.Process.Kill(); tty.Close() })
	return term
}

func (tm *terminal) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

// expect waits until the terminal has shown a match of re.
func (tm *terminal) expect(re string, timeout time.Duration) string {
	tm.t.Helper()
	r := regexp.MustCompile(re)
	var m string
	waitFor(tm.t, timeout, "terminal output matching "+re, func() bool {
		m = r.FindString(tm.output())
		return m != ""
	})
	return m
}

// retry types keys at a keyboard's pace until the terminal shows want.
func (tm *terminal) retry(keys, want string, timeout time.Duration) {
	tm.t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(tm.output(), want) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("terminal never showed %q; terminal:\n%s", want, tm.output())
		}
		tm.send(keys)
		<-tick.C
	}
}

func (tm *terminal) send(s string) {
	tm.t.Helper()
	if _, err := tm.tty.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// exit waits for qsub to end and returns its exit status.
func (tm *terminal) exit(timeout time.Duration) int {
	tm.t.Helper()
	select {
	case err := <-tm.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 0
	case <-time.After(timeout):
		tm.t.Fatalf("qsub -I did not end within %s; terminal:\n%s", timeout, tm.output())
		return -1
	}
}

// TestInteractiveJob drives qsub -I through a pseudo-terminal: PBS's
// messages, a shell on the mother superior in the job's environment with
// a real terminal, the window size passed through and followed, ^C
// reaching the job's foreground process, the node file of a multi-host
// job, and exit ending the job with its status.
func TestInteractiveJob(t *testing.T) {
	c := startCluster(t, 2, 1)
	tm := c.qsubInteractive("-l", "select=2:ncpus=1", "-l", "place=scatter", "-l", "walltime=00:05:00")
	id := strings.TrimSuffix(strings.TrimPrefix(tm.expect(`qsub: waiting for job \S+ to start`, 20*time.Second), "qsub: waiting for job "), " to start")
	tm.expect(`qsub: job `+regexp.QuoteMeta(id)+` ready\r?\n\r?\n`, 30*time.Second)
	if j := c.job(id); str(j["interactive"]) != "True" || strings.Contains(c.must("qstat", "-f", "-F", "json", id), "cookie") {
		t.Errorf("qstat of the interactive job: interactive=%v (and no cookie may show)", j["interactive"])
	}

	tm.send("echo env=$PBS_ENVIRONMENT job=$PBS_JOBID; test -t 0 && echo on-a-tty\r")
	tm.expect(`env=PBS_INTERACTIVE job=`+regexp.QuoteMeta(id), 10*time.Second)
	tm.expect(`on-a-tty`, 5*time.Second)
	tm.send("echo size=$(stty size)\r")
	tm.expect(`size=40 100`, 10*time.Second)
	// A resize of qsub's terminal (the kernel sends qsub SIGWINCH).
	pty.Setsize(tm.tty, &pty.Winsize{Rows: 30, Cols: 120})
	tm.retry("echo size=$(stty size)\r", "size=30 120", 10*time.Second)
	tm.send("echo nodes=$(sort $PBS_NODEFILE | tr '\\n' ' ')\r")
	tm.expect(`nodes=node1 node2\r`, 10*time.Second)
	// ^C reaches the job's foreground process, not qsub.
	tm.send("echo sleeping-$((40+2)); sleep 300\r")
	tm.expect(`sleeping-42`, 10*time.Second)
	tm.send("\x03")
	tm.send("echo rc=$((1000+$?))\r")
	tm.expect(`rc=1130`, 10*time.Second) // 130: ended by SIGINT, well before 300 s
	tm.send("exit 7\r")
	tm.expect(`\r?\nqsub: job `+regexp.QuoteMeta(id)+` completed`, 20*time.Second)
	if code := tm.exit(10 * time.Second); code != 7 {
		t.Errorf("qsub -I exit status %d, want the job's 7; terminal:\n%s", code, tm.output())
	}
	j := c.waitState(id, 20*time.Second, "F")
	if str(j["Exit_status"]) != "7" {
		t.Errorf("Exit_status %v, want 7", j["Exit_status"])
	}
}

// TestInteractiveJobEnds: walltime and qdel end the session with PBS's
// words; input that is not a terminal runs as the session's commands.
func TestInteractiveJobEnds(t *testing.T) {
	c := startCluster(t, 1, 2)

	tm := c.qsubInteractive("-l", "walltime=3")
	tm.expect(`qsub: job \S+ ready`, 30*time.Second)
	tm.send("sleep 300\r")
	tm.expect(`=>> PBS: job killed: walltime \d+ exceeded limit 3`, 30*time.Second)
	tm.expect(`qsub: job \S+ completed`, 20*time.Second)
	tm.exit(10 * time.Second)

	tm = c.qsubInteractive()
	id := strings.TrimSuffix(strings.TrimPrefix(tm.expect(`qsub: waiting for job \S+ to start`, 20*time.Second), "qsub: waiting for job "), " to start")
	tm.expect(`qsub: job \S+ ready`, 30*time.Second)
	c.must("qdel", id)
	tm.expect(`qsub: job `+regexp.QuoteMeta(id)+` completed`, 30*time.Second)
	tm.exit(10 * time.Second)
	if j := c.waitState(id, 20*time.Second, "F"); !strings.Contains(str(j["comment"]), "terminated") {
		t.Errorf("deleted session: %v", j["comment"])
	}

	// Not a terminal: the input is typed into the session, as in PBS.
	cmd := exec.Command(filepath.Join(binDir, "qsub"), "-I")
	cmd.Env, cmd.Dir = c.env, c.work
	cmd.Stdin = strings.NewReader("echo piped-$((6*7))\nexit 4\n")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 || !strings.Contains(string(out), "piped-42") {
		t.Errorf("qsub -I with piped input: %v\n%s", err, out)
	}
}
