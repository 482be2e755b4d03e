//go:build e2e

package main

// End-to-end regression tests of issue 9 items 2-6 (security-fsm part):
// each performs the attack through the real commands as an unprivileged
// user and checks what the user sees and that nothing else changed.

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

const securityQueues = `
[[queue]]
name = "workq"
enabled = true
started = true

# Only root may have jobs here.
[[queue]]
name = "rootq"
enabled = true
started = true
acl_user_enable = true
acl_users = ["root"]

[[queue]]
name = "smallq"
enabled = true
started = true
resources_max = { ncpus = "1" }
`

// Items 2 and 3: a stepped range up to the largest int64 on one's own array
// used to hang the state machine (for good: the entry replayed at every
// restart), and -J 0-9223372036854775807 overflowed the size check.
func TestArrayRangeAttacksAreBounded(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	c := newCluster(t, 1, 2, "")
	r := c.runAs(nobody, "", "qsub", "-J", "0-9223372036854775807", "--", "/bin/true")
	if r.code != 3 || r.stderr != "qsub: Array job exceeds server or queue size limit\n" {
		t.Errorf("qsub -J 0-9223372036854775807: %+v", r)
	}
	r = c.runAs(nobody, "", "qsub", "-h", "-J", "0-9", "--", "/bin/true")
	if r.code != 0 {
		t.Fatalf("nobody's array: %+v", r)
	}
	arr := strings.TrimSpace(r.stdout)
	seq := strings.TrimSuffix(arr, "[].e2e")
	done := make(chan result, 1)
	go func() { done <- c.runAs(nobody, "", "qdel", seq+"[0-9223372036854775806:2]") }()
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("qdel of the huge stepped range did not return")
	}
	if r.code != 0 {
		t.Errorf("qdel of the stepped range: %+v", r)
	}
	check := func(when string) {
		t.Helper()
		out := c.must("qstat", "-t", arr)
		for _, want := range []string{seq + "[1].e2e", seq + "[9].e2e"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: qstat -t lacks %s:\n%s", when, want, out)
			}
		}
		if j := c.job(seq + "[2].e2e"); str(j["job_state"]) != "X" {
			t.Errorf("%s: deleted subjob 2 is %v, want X", when, j["job_state"])
		}
		// The state machine still takes writes.
		c.must("qsub", "-h", "--", "/bin/true")
	}
	check("after the qdel")
	// A restart replays the entry: it must not hang again.
	c.kill9("server1")
	c.restart()
	waitFor(t, 30*time.Second, "the server to answer after the restart", func() bool {
		return c.run("qsub", "-h", "--", "/bin/true").code == 0
	})
	check("after a restart")
}

// Item 4: a before* dependency on another user's job held (and could
// delete) that job.
func TestBeforeDependencyNeedsRightOnTarget(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	c := newCluster(t, 1, 2, "")
	victim := strings.TrimSpace(c.must("qsub", "-h", "--", "/bin/true"))
	for _, typ := range []string{"beforeok", "beforenotok", "beforeany"} {
		r := c.runAs(nobody, "", "qsub", "-W", "depend="+typ+":"+victim, "--", "/bin/false")
		if r.code != 159 || !strings.HasPrefix(r.stderr, "qsub: Unauthorized Request") {
			t.Errorf("nobody's qsub depend=%s on root's job: %+v", typ, r)
		}
	}
	r := c.runAs(nobody, "", "qsub", "-h", "--", "/bin/true")
	mine := strings.TrimSpace(r.stdout)
	r = c.runAs(nobody, "", "qalter", "-W", "depend=beforeany:"+victim, mine)
	if r.code != 159 || !strings.HasPrefix(r.stderr, "qalter: Unauthorized Request") {
		t.Errorf("nobody's qalter depend=beforeany on root's job: %+v", r)
	}
	j := c.job(victim)
	if d := str(j["depend"]); d != "" || !strings.Contains(str(j["Hold_Types"]), "u") || strings.Contains(str(j["Hold_Types"]), "s") {
		t.Errorf("root's job changed: depend=%q Hold_Types=%v", d, j["Hold_Types"])
	}
	// The owner may still do it to their own job.
	r = c.runAs(nobody, "", "qsub", "-h", "--", "/bin/true")
	own := strings.TrimSpace(r.stdout)
	if r := c.runAs(nobody, "", "qsub", "-W", "depend=beforeany:"+own, "--", "/bin/true"); r.code != 0 {
		t.Errorf("before dependency on one's own job: %+v", r)
	}
}

// Item 5: qmove ran no admission of the destination queue.
func TestQmoveRunsDestinationAdmission(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	c := newCluster(t, 1, 2, securityQueues)
	r := c.runAs(nobody, "", "qsub", "-h", "-l", "select=1:ncpus=2", "--", "/bin/true")
	if r.code != 0 {
		t.Fatalf("qsub: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	for _, tc := range []struct{ queue, stderr string }{
		{"rootq", "qmove: Access to queue is denied " + id + "\n"},
		{"smallq", "qmove: Job violates queue and/or server resource limits " + id + "\n"},
	} {
		r := c.runAs(nobody, "", "qmove", tc.queue, id)
		if r.code == 0 || r.stderr != tc.stderr {
			t.Errorf("qmove %s: %+v, want stderr %q", tc.queue, r, tc.stderr)
		}
		if q := str(c.job(id)["queue"]); q != "workq" {
			t.Errorf("after the refused qmove %s the job is in %s", tc.queue, q)
		}
	}
	// Another user's reservation: only its authorized users may have jobs
	// in its queue.
	start := time.Now().Add(time.Hour).Truncate(time.Second)
	resv, _ := c.rsub("-R", at(start), "-D", "600", "-l", "select=1:ncpus=1")
	queue := strings.TrimSuffix(resv, ".e2e")
	waitFor(t, 15*time.Second, "confirmation", func() bool { return c.resvAttr(resv, "reserve_state") == "RESV_CONFIRMED" })
	r = c.runAs(nobody, "", "qsub", "-h", "--", "/bin/true")
	small := strings.TrimSpace(r.stdout)
	if r := c.runAs(nobody, "", "qmove", queue, small); r.code == 0 || r.stderr != "qmove: Access to queue is denied "+small+"\n" {
		t.Errorf("qmove into root's reservation: %+v", r)
	}
	// Even a manager cannot move nobody's job there.
	if r := c.run("qmove", queue, small); r.code == 0 {
		t.Errorf("root moved nobody's job into root's reservation: %+v", r)
	}
	if q := str(c.job(small)["queue"]); q != "workq" {
		t.Errorf("job moved to %s", q)
	}
	// An allowed move still works.
	root := strings.TrimSpace(c.must("qsub", "-h", "--", "/bin/true"))
	c.must("qmove", "rootq", root)
}

// Item 6: a newline in a free-text attribute forged accounting records.
func TestControlCharactersRefusedAndAccountingEscaped(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	c := newCluster(t, 1, 2, "")
	forged := "x\n11/26/2026 10:00:00;E;99.e2e;user=root Exit_status=0"
	for _, tc := range []struct {
		opt, attr string
	}{{"-A", "Account_Name"}, {"-P", "project"}, {"-M", "Mail_Users"}} {
		r := c.runAs(nobody, "", "qsub", tc.opt, forged, "--", "/bin/true")
		if r.code == 0 || !strings.Contains(r.stderr, "llegal") {
			t.Errorf("qsub %s with a newline: %+v", tc.opt, r)
		}
	}
	r := c.runAs(nobody, "", "qsub", "-h", "-A", "ok", "--", "/bin/true")
	id := strings.TrimSpace(r.stdout)
	r = c.runAs(nobody, "", "qalter", "-A", forged, id)
	if r.code != 166 || !strings.HasPrefix(r.stderr, "qalter: Illegal attribute or resource value Account_Name") {
		t.Errorf("qalter -A with a newline: %+v", r)
	}
	if a := str(c.job(id)["Account_Name"]); a != "ok" {
		t.Errorf("Account_Name = %q", a)
	}
	c.must("qdel", id)
	// Every accounting line is a record the server made.
	waitFor(t, 10*time.Second, "the D record", func() bool { return strings.Contains(c.acctLog(), ";D;"+id+";") })
	for _, l := range strings.Split(strings.TrimSpace(c.acctLog()), "\n") {
		if strings.Contains(l, "99.e2e") {
			t.Errorf("forged accounting line: %q", l)
		}
	}
}

// The command side of the authorization matrix: every PBS command that
// changes a job, a reservation or the server, run by nobody against root's
// objects, is refused with "Unauthorized Request" (exit 159) and changes
// nothing.
// reVolatileJSON matches what changes in qstat -F json without a request:
// the listing's timestamp and a running job's usage.
var reVolatileJSON = regexp.MustCompile(`"timestamp":\t[0-9]+,|"resources_used":\t\{[^}]*\},?`)

func TestCommandsAsOtherUserAreUnauthorized(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	c := newCluster(t, 1, 2, "")
	held := strings.TrimSpace(c.must("qsub", "-h", "--", "/bin/true"))
	other := strings.TrimSpace(c.must("qsub", "-h", "--", "/bin/true"))
	running := strings.TrimSpace(c.must("qsub", "--", "/bin/sleep", "1000"))
	waitFor(t, 30*time.Second, "the job to run", func() bool { return str(c.job(running)["substate"]) == "42" })
	resv, _ := c.rsub("-R", at(time.Now().Add(time.Hour).Truncate(time.Second)), "-D", "600", "-l", "select=1:ncpus=1")
	// What a refused command could have changed: everything qstat shows
	// but the time of the listing and the running job's usage reports.
	jobsNow := func() string {
		out := c.must("qstat", "-x", "-f", "-F", "json", held, other, running)
		return reVolatileJSON.ReplaceAllString(out, "")
	}
	before := jobsNow()
	cases := [][]string{
		{"qdel", held},
		{"qhold", held},
		{"qrls", "-h", "u", held},
		{"qalter", "-N", "stolen", held},
		{"qsig", running},
		{"qmove", "workq", held},
		{"qrerun", running},
		{"qrun", held},
		{"qorder", held, other},
		{"pbs_rdel", resv},
	}
	for _, args := range cases {
		r := c.runAs(nobody, "", args[0], args[1:]...)
		if r.code != 159 || !strings.HasPrefix(r.stderr, args[0]+": Unauthorized Request") {
			t.Errorf("nobody's %v: exit %d stderr %q, want 159 Unauthorized Request", args, r.code, r.stderr)
		}
	}
	r := c.runAs(nobody, "", "qmgr", "-c", "set server max_array_size = 5")
	if r.code == 0 || !strings.Contains(r.stderr, "Unauthorized Request") {
		t.Errorf("nobody's qmgr set: %+v", r)
	}
	if after := jobsNow(); after != before {
		t.Errorf("refused commands changed the jobs:\nbefore %s\nafter %s", before, after)
	}
	if st := c.resvAttr(resv, "reserve_state"); st == "" {
		t.Errorf("reservation %s gone", resv)
	}
	if out := c.must("qmgr", "-c", "list server"); strings.Contains(out, "max_array_size = 5") {
		t.Errorf("nobody changed max_array_size")
	}
}
