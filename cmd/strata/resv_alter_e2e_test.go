//go:build e2e

package main

// End-to-end tests of pbs_ralter (docs/reservations.md, "Altering a
// reservation"): every success and refusal, the scheduler's verdict, a
// running reservation extended and shortened, and the attacks (another
// user, -Wforce without being a manager).

import (
	"strings"
	"testing"
	"time"
)

// ralter runs pbs_ralter and returns what it printed and its exit code.
func (c *cluster) ralter(args ...string) result {
	c.t.Helper()
	return c.run("pbs_ralter", args...)
}

// resvTimes reads reserve_start, reserve_end (as pbs_rstat -f prints them)
// and reserve_duration.
func (c *cluster) resvTimes(id string) (string, string, string) {
	return c.resvAttr(id, "reserve_start"), c.resvAttr(id, "reserve_end"), c.resvAttr(id, "reserve_duration")
}

func TestResvAlterConfirmedAndRefused(t *testing.T) {
	c := startCluster(t, 2, 2)
	start := time.Now().Add(time.Hour).Truncate(time.Minute)
	id, state := c.rsub("-I", "20", "-R", at(start), "-D", "600", "-l", "select=1:ncpus=1")
	if state != "CONFIRMED" {
		t.Fatalf("pbs_rsub: %s", state)
	}
	// -E without waiting: ALTER REQUESTED, then confirmed by the scheduler.
	r := c.ralter("-E", at(start.Add(20*time.Minute)), id)
	if r.code != 0 || r.stdout != "pbs_ralter: "+id+" ALTER REQUESTED\n" || r.stderr != "" {
		t.Fatalf("pbs_ralter -E: %+v", r)
	}
	waitFor(t, 10*time.Second, "the alteration to be confirmed", func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" && c.resvAttr(id, "reserve_duration") == "1200"
	})
	if wt := c.resvAttr(id, "Resource_List.walltime"); wt != "00:20:00" {
		t.Errorf("walltime after -E: %s", wt)
	}
	// -R keeps the duration; -I waits for the verdict.
	r = c.ralter("-I", "20", "-R", at(start.Add(30*time.Minute)), id)
	if r.code != 0 || r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -I -R: %+v", r)
	}
	_, end, dur := c.resvTimes(id)
	if dur != "1200" || end != start.Add(50*time.Minute).Format("Mon Jan 02 15:04:05 2006") {
		t.Errorf("after -R: end %s duration %s", end, dur)
	}
	// -D alone keeps the start.
	if r = c.ralter("-I", "20", "-D", "900", id); r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -D: %+v", r)
	}
	if _, _, dur = c.resvTimes(id); dur != "900" {
		t.Errorf("duration after -D: %s", dur)
	}
	// Growing the select: confirmed on two vnodes.
	if r = c.ralter("-I", "20", "-l", "select=2:ncpus=2", id); r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -l select grow: %+v", r)
	}
	if nodes := c.resvAttr(id, "resv_nodes"); strings.Count(nodes, "ncpus=2") != 2 {
		t.Errorf("resv_nodes after growing: %s", nodes)
	}
	// Growing past the cluster: denied, and nothing changes.
	before := c.must("pbs_rstat", "-f", id)
	if r = c.ralter("-I", "20", "-l", "select=3:ncpus=2", id); r.code != 0 || r.stdout != "pbs_ralter: "+id+" DENIED\n" {
		t.Fatalf("pbs_ralter -l select too big: %+v", r)
	}
	if sel := c.resvAttr(id, "Resource_List.select"); sel != "2:ncpus=2" {
		t.Errorf("select after a denied alteration: %s", sel)
	}
	if cm := c.resvAttr(id, "comment"); !strings.HasPrefix(cm, "Reservation alter denied: ") {
		t.Errorf("comment after a denied alteration: %q", cm)
	}
	if st := c.resvAttr(id, "reserve_state"); st != "RESV_CONFIRMED" {
		t.Errorf("state after a denied alteration: %s", st)
	}
	after := c.must("pbs_rstat", "-f", id)
	if strip(before) != strip(after) {
		t.Errorf("a denied alteration changed the reservation:\n%s\n---\n%s", before, after)
	}
	// Shrinking it again.
	if r = c.ralter("-I", "20", "-l", "select=1:ncpus=1", id); r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -l select shrink: %+v", r)
	}
	if nodes := c.resvAttr(id, "resv_nodes"); strings.Count(nodes, "ncpus=1") != 1 || strings.Contains(nodes, "+") {
		t.Errorf("resv_nodes after shrinking: %s", nodes)
	}

	// Another reservation takes the whole cluster later; moving the first
	// into it is denied, unless a manager forces it.
	other, state := c.rsub("-I", "20", "-R", at(start.Add(3*time.Hour)), "-D", "3600", "-l", "select=2:ncpus=2")
	if state != "CONFIRMED" {
		t.Fatalf("second reservation: %s", state)
	}
	s0, e0, _ := c.resvTimes(id)
	if r = c.ralter("-I", "20", "-R", at(start.Add(3*time.Hour)), id); r.stdout != "pbs_ralter: "+id+" DENIED\n" {
		t.Fatalf("pbs_ralter into a full window: %+v", r)
	}
	if s, e, _ := c.resvTimes(id); s != s0 || e != e0 {
		t.Errorf("denied move changed the times: %s %s (was %s %s)", s, e, s0, e0)
	}
	// The attack: another user, and -Wforce from a non-manager.
	if r = c.runAs(nobody, "", "pbs_ralter", "-E", at(start.Add(2*time.Hour)), id); r.code != 159 || r.stderr != "pbs_ralter: Unauthorized Request\n" {
		t.Errorf("pbs_ralter by another user: %+v", r)
	}
	if r = c.runAs(nobody, "", "pbs_ralter", "-N", "mine", id); r.code != 159 {
		t.Errorf("pbs_ralter -N by another user: %+v", r)
	}
	if r = c.runAs(nobody, "", "pbs_ralter", "-Wforce", "-E", at(start.Add(2*time.Hour)), id); r.code != 159 {
		t.Errorf("pbs_ralter -Wforce by another user: %+v", r)
	}
	if s, e, _ := c.resvTimes(id); s != s0 || e != e0 || c.resvAttr(id, "Reserve_Name") != "NULL" {
		t.Errorf("refused alterations changed the reservation")
	}
	r = c.ralter("-I", "20", "-Wforce", "-R", at(start.Add(3*time.Hour)), id)
	if r.code != 0 || r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -Wforce: %+v", r)
	}
	if s, _, _ := c.resvTimes(id); s != start.Add(3*time.Hour).Format("Mon Jan 02 15:04:05 2006") {
		t.Errorf("forced start: %s", s)
	}
	if cm := c.resvAttr(id, "comment"); !strings.HasPrefix(cm, "Reservation alter forced by ") {
		t.Errorf("comment after -Wforce: %q", cm)
	}

	// Refusals of the request itself.
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-R", at(time.Now().Add(-time.Minute)), id}, 238, "pbs_ralter: Bad time specification(s)\n"},
		{[]string{"-E", at(start.Add(3*time.Hour - time.Minute)), id}, 238, "pbs_ralter: Bad time specification(s)\n"},
		{[]string{"-R", at(start), "-E", at(start.Add(time.Hour)), "-D", "60", id}, 238, "pbs_ralter: Bad time specification(s)\n"},
		{[]string{"-E", at(start.Add(5 * time.Hour)), "R999.e2e"}, 236, "pbs_ralter: Unknown Reservation Id\n"},
		{[]string{"-Wforce", "-N", "x", id}, 2, "pbs_ralter: No support for requested service\n"},
		{[]string{"-l", "ncpus=2", id}, 2, "pbs_ralter: -l only allows for select\n"},
		{[]string{"-E", "garbage", id}, 2, "pbs_ralter: illegal -E time value\n"},
		{[]string{"-I", "0", "-N", "x", id}, 2, "pbs_ralter: illegal -I time value\n"},
		{[]string{"-m", "xyz", id}, 166, "pbs_ralter: Illegal attribute or resource value Mail_Points\n"},
		{[]string{"-M", "-oQ/tmp/x", id}, 166, "pbs_ralter: Illegal attribute or resource value Mail_Users\n"},
		{[]string{"-l", "select=1:ncpus=1:aoe=x", id}, 166, "pbs_ralter: Illegal attribute or resource value Resource_List.select"},
		{[]string{id}, 0, ""},
	} {
		r := c.ralter(tc.args...)
		if tc.code == 0 {
			if r.code != 0 {
				t.Errorf("pbs_ralter %v: %+v", tc.args, r)
			}
			continue
		}
		if r.code != tc.code || (tc.stderr != "" && !strings.HasPrefix(r.stderr, tc.stderr)) {
			t.Errorf("pbs_ralter %v: exit %d stderr %q; want %d %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
	}
	if r = c.run("pbs_ralter"); r.code != 2 || !strings.Contains(r.stderr, "usage: pbs_ralter") {
		t.Errorf("pbs_ralter without an id: %+v", r)
	}

	// Name, users, groups and mail need no scheduler.
	r = c.ralter("-N", "workshop", "-U", "nobody,+alice", "-G", "nogroup", "-m", "be", "-M", "ops@example.org", id)
	if r.code != 0 || r.stdout != "pbs_ralter: "+id+" ALTER REQUESTED\n" {
		t.Fatalf("pbs_ralter attributes: %+v", r)
	}
	owner := c.resvAttr(id, "Reserve_Owner")
	for attr, want := range map[string]string{
		"Reserve_Name": "workshop", "Authorized_Users": owner + ",nobody,alice", "Authorized_Groups": "nogroup",
		"Mail_Points": "be", "Mail_Users": "ops@example.org", "reserve_state": "RESV_CONFIRMED",
	} {
		if got := c.resvAttr(id, attr); got != want {
			t.Errorf("%s = %q, want %q", attr, got, want)
		}
	}

	// Without a scheduler: -W force applies at once, a plain change waits
	// in RESV_BEING_ALTERED (-I times out with UNCONFIRMED), a second one
	// is refused until the scheduler decided the first.
	c.must("qmgr", "-c", "set server scheduling = false")
	forced := start.Add(3*time.Hour + 20*time.Minute)
	if r = c.ralter("-Wforce", "-E", at(forced), id); r.code != 0 || r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -Wforce without a scheduler: %+v", r)
	}
	if _, e, _ := c.resvTimes(id); e != forced.Format("Mon Jan 02 15:04:05 2006") {
		t.Errorf("end after a forced change without a scheduler: %s", e)
	}
	if r = c.ralter("-I", "2", "-D", "600", id); r.code != 0 || r.stdout != "pbs_ralter: "+id+" UNCONFIRMED\n" {
		t.Fatalf("pbs_ralter -I without a scheduler: %+v", r)
	}
	if st := c.resvAttr(id, "reserve_state"); st != "RESV_BEING_ALTERED" {
		t.Errorf("state while the change waits: %s", st)
	}
	if r = c.ralter("-N", "again", id); r.code != 168 || r.stderr != "pbs_ralter: Request invalid for state of job\n" {
		t.Errorf("pbs_ralter while a change waits: %+v", r)
	}
	c.must("qmgr", "-c", "set server scheduling = true")
	// It still overlaps the other reservation (a forced change does not
	// make room): denied, back to the forced 20 minutes.
	waitFor(t, 10*time.Second, "the waiting change to be decided", func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED"
	})
	if d, cm := c.resvAttr(id, "reserve_duration"), c.resvAttr(id, "comment"); d != "1200" || !strings.HasPrefix(cm, "Reservation alter denied: ") {
		t.Errorf("after the verdict: duration %s, comment %q", d, cm)
	}
	_ = other
}

// strip drops the lines an unchanged reservation may still change
// (mtime, comment).
func strip(full string) string {
	var keep []string
	for _, l := range strings.Split(full, "\n") {
		if !strings.HasPrefix(l, "mtime = ") && !strings.HasPrefix(l, "comment = ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestResvAlterRunning(t *testing.T) {
	c := startCluster(t, 1, 2)
	start := time.Now().Add(4 * time.Second).Truncate(time.Second)
	id, state := c.rsub("-I", "10", "-R", at(start), "-D", "20", "-l", "select=2:ncpus=1")
	if state != "CONFIRMED" {
		t.Fatalf("pbs_rsub: %s", state)
	}
	queue := strings.TrimSuffix(id, ".e2e")
	job := c.submit("sleep 1000\n", "-q", queue, "-l", "walltime=1000")
	c.waitState(job, 20*time.Second, "R")
	waitFor(t, 10*time.Second, "RN", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_RUNNING" })
	// Its start cannot move while a job is in it.
	if r := c.ralter("-R", at(time.Now().Add(time.Hour)), id); r.code != 74 || r.stderr != "pbs_ralter: Reservation not empty\n" {
		t.Errorf("pbs_ralter -R of a running reservation with a job: %+v", r)
	}
	if r := c.ralter("-E", at(time.Now().Add(time.Hour)), "-D", "3600", id); r.code != 74 {
		t.Errorf("pbs_ralter -E -D of a running reservation with a job: %+v", r)
	}
	// Shrunk while its job runs: only to a subset of its chunks, keeping
	// the job's; the cpu it gives back is free for others at once.
	if r := c.ralter("-l", "select=1:ncpus=2", id); r.code != 79 || r.stderr != "pbs_ralter: New select must be made up of a subset of the original chunks\n" {
		t.Errorf("shrinking a running reservation to other chunks: %+v", r)
	}
	if r := c.ralter("-l", "select=1:ncpus=1", "-E", at(time.Now().Add(time.Hour)), id); r.code != 74 {
		t.Errorf("shrinking and extending a running reservation with a job at once: %+v", r)
	}
	if r := c.ralter("-l", "select=1:ncpus=1", id); r.code != 0 || r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("shrinking a running reservation: %+v", r)
	}
	if sel, nodes := c.resvAttr(id, "Resource_List.select"), c.resvAttr(id, "resv_nodes"); sel != "1:ncpus=1" || nodes != "(node1:ncpus=1)" {
		t.Errorf("after shrinking: select %s, resv_nodes %s", sel, nodes)
	}
	outside := c.submit("sleep 1\n", "-l", "select=1:ncpus=1", "-l", "walltime=5")
	c.waitState(outside, 15*time.Second, "R", "F")
	if st := str(c.job(job)["job_state"]); st != "R" {
		t.Errorf("the reservation's job after shrinking: %s", st)
	}
	// Extended: the job keeps running past the old end.
	oldEnd := start.Add(20 * time.Second)
	r := c.ralter("-I", "20", "-E", at(oldEnd.Add(time.Hour)), id)
	if r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("extending a running reservation: %+v", r)
	}
	if st := c.resvAttr(id, "reserve_state"); st != "RESV_RUNNING" {
		t.Errorf("state after extending: %s", st)
	}
	for time.Now().Before(oldEnd.Add(2 * time.Second)) {
		if st := str(c.job(job)["job_state"]); st != "R" {
			t.Fatalf("the job ended (%s) before the extended end", st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Shortened: it ends at the new end and its job is killed.
	newEnd := time.Now().Add(4 * time.Second).Truncate(time.Second).Add(time.Second)
	r = c.ralter("-I", "20", "-E", at(newEnd), id)
	if r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("shortening a running reservation: %+v", r)
	}
	j := c.waitState(job, 30*time.Second, "F")
	if time.Now().Before(newEnd) {
		t.Errorf("job ended before the new end")
	}
	if cm := str(j["comment"]); !strings.Contains(cm, "Reservation "+id+" ended") {
		t.Errorf("job comment: %q", cm)
	}
	waitFor(t, 10*time.Second, "the reservation to end", func() bool { return c.run("pbs_rstat", id).code == 236 })
}

func TestResvAlterStandingOccurrence(t *testing.T) {
	c := startCluster(t, 1, 2)
	c.env = append(c.env, "PBS_TZID=UTC")
	start := time.Now().Add(time.Hour).Truncate(time.Minute)
	out := strings.Fields(c.must("pbs_rsub", "-I", "20", "-r", "FREQ=HOURLY;COUNT=3", "-R", at(start), "-D", "600", "-l", "select=1:ncpus=1"))
	if len(out) != 2 || out[1] != "CONFIRMED" || !strings.HasPrefix(out[0], "S") {
		t.Fatalf("standing reservation: %v", out)
	}
	id := out[0]
	// The current occurrence may grow up to the next one...
	if r := c.ralter("-I", "20", "-D", "1800", id); r.stdout != "pbs_ralter: "+id+" CONFIRMED\n" {
		t.Fatalf("pbs_ralter -D of a standing reservation: %+v", r)
	}
	if d := c.resvAttr(id, "reserve_duration"); d != "1800" {
		t.Errorf("duration of the altered occurrence: %s", d)
	}
	// ... not into it.
	if r := c.ralter("-E", at(start.Add(time.Hour)), id); r.code != 75 || r.stderr != "pbs_ralter: Requested time(s) will interfere with a later occurrence\n" {
		t.Errorf("pbs_ralter -E into the next occurrence: %+v", r)
	}
	if r := c.ralter("-l", "select=1:ncpus=2", id); r.code != 181 || !strings.Contains(r.stderr, "No support for requested service") {
		t.Errorf("pbs_ralter -l select of a standing reservation: %+v", r)
	}
}
