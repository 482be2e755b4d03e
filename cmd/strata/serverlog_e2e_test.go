//go:build e2e

package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServerEventLog: the server writes PBS's server log in
// <data_dir>/server_logs/YYYYMMDD: a job's life, qmgr changes with their
// values; log_events filters it.
func TestServerEventLog(t *testing.T) {
	c := startCluster(t, 1, 1)
	id := c.submit("true\n", "-N", "logged")
	c.waitState(id, 20*time.Second, "F")
	c.must("qmgr", "-c", "set server comment = hello")
	read := func() string { return c.dataFiles("server_logs") }
	line := `^\d\d/\d\d/\d{4} \d\d:\d\d:\d\d;0x[0-9a-f]{4};Server@[^;]+;`
	for _, want := range []string{
		line + `Job;` + regexp.QuoteMeta(id) + `;Job Queued at request of root@[^,]+, owner = root@[^,]+, job name = logged, queue = workq$`,
		line + `Job;` + regexp.QuoteMeta(id) + `;Job Run at request of Scheduler on exec_vnode \(node1:ncpus=1\)$`,
		line + `Job;` + regexp.QuoteMeta(id) + `;Exit_status=0`,
		line + `Svr;server;set server comment = hello at request of root@`,
	} {
		re := regexp.MustCompile("(?m)" + want)
		waitFor(t, 10*time.Second, "server log line "+want, func() bool { return re.MatchString(read()) })
	}
	if got := c.must("qmgr", "-c", "list server"); !strings.Contains(got, "log_events = 511") {
		t.Errorf("qmgr list server lacks log_events = 511:\n%s", got)
	}
	c.must("qmgr", "-c", "set server log_events = 4")
	quiet := c.submit("true\n", "-N", "quiet")
	c.waitState(quiet, 20*time.Second, "F")
	c.must("qmgr", "-c", "set server comment = after")
	waitFor(t, 10*time.Second, "the admin line after log_events = 4", func() bool { return strings.Contains(read(), "set server comment = after") })
	if strings.Contains(read(), quiet) {
		t.Errorf("log_events = 4 (admin only) still logged job %s", quiet)
	}
	// A restart replays the Raft log: nothing is written twice.
	before := read()
	c.kill9("server1")
	c.restart()
	c.must("qmgr", "-c", "set server comment = restarted")
	waitFor(t, 20*time.Second, "the line after the restart", func() bool { return strings.Contains(read(), "set server comment = restarted") })
	after := read()
	if !strings.HasPrefix(after, before) || strings.Count(after, "Job Queued at request of") != strings.Count(before, "Job Queued at request of") {
		t.Errorf("the restart rewrote lines:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
