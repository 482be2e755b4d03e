//go:build e2e

package main

// End-to-end tests of reservations (docs/reservations.md): pbs_rsub,
// pbs_rstat and pbs_rdel against a real cluster, jobs inside and outside
// a reservation, its end, and AOE reservations provisioned before they
// start.

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// at formats a time for pbs_rsub -R/-E ([[CC]YY]MMDDhhmm.SS).
func at(t time.Time) string { return t.Format("200601021504.05") }

var reResvOut = regexp.MustCompile(`^(R\d+\.e2e) (UNCONFIRMED|CONFIRMED|DENIED)\n$`)

// rsub runs pbs_rsub and returns the id and the state it printed.
func (c *cluster) rsub(args ...string) (string, string) {
	c.t.Helper()
	out := c.must("pbs_rsub", args...)
	m := reResvOut.FindStringSubmatch(out)
	if m == nil {
		c.t.Fatalf("pbs_rsub %v printed %q", args, out)
	}
	return m[1], m[2]
}

// resvAttr reads one attribute of pbs_rstat -f.
func (c *cluster) resvAttr(id, attr string) string {
	r := c.run("pbs_rstat", "-f", id)
	for _, l := range strings.Split(r.stdout, "\n") {
		if k, v, ok := strings.Cut(l, " = "); ok && k == attr {
			return v
		}
	}
	return ""
}

func TestResvLifecycle(t *testing.T) {
	c := startCluster(t, 2, 2)
	start := time.Now().Add(8 * time.Second).Truncate(time.Second)
	id, state := c.rsub("-R", at(start), "-D", "20", "-N", "window", "-l", "select=1:ncpus=2")
	if state != "UNCONFIRMED" {
		t.Fatalf("pbs_rsub printed %s", state)
	}
	queue := strings.TrimSuffix(id, ".e2e")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" })
	nodes := c.resvAttr(id, "resv_nodes")
	if !regexp.MustCompile(`^\(node\d:ncpus=2\)$`).MatchString(nodes) {
		t.Errorf("resv_nodes = %q", nodes)
	}
	node := strings.TrimPrefix(strings.Split(nodes, ":")[0], "(")

	// Layouts: -S (default), -B, -f.
	out := c.must("pbs_rstat")
	lines := strings.Split(out, "\n")
	if len(lines) != 4 || lines[0] != "Resv ID    Queue    User     State             Start / Duration / End              " ||
		lines[1] != strings.Repeat("-", 69) || !strings.HasPrefix(lines[2], (id + "          ")[:11]+(queue + "        ")[:9]) ||
		!strings.Contains(lines[2], " CO    ") || !strings.Contains(lines[2], " / 20 / ") {
		t.Errorf("pbs_rstat:\n%s", out)
	}
	if out := c.must("pbs_rstat", "-B"); out != "Resv ID: "+id+"\n" {
		t.Errorf("pbs_rstat -B: %q", out)
	}
	full := c.must("pbs_rstat", "-f", queue)
	for _, want := range []string{"Resv ID: " + id + "\n", "Reserve_Name = window\n", "reserve_state = RESV_CONFIRMED\n",
		"reserve_substate = 2\n", "reserve_duration = 20\n", "queue = " + queue + "\n", "Resource_List.walltime = 00:00:20\n",
		"Resource_List.select = 1:ncpus=2\n", "resv_nodes = " + nodes + "\n"} {
		if !strings.Contains(full, want) {
			t.Errorf("pbs_rstat -f lacks %q:\n%s", want, full)
		}
	}
	if !strings.HasSuffix(full, "\n\n") {
		t.Errorf("pbs_rstat -f does not end with an empty line")
	}

	// Jobs inside wait for the start, then run on the reservation's vnode.
	in1 := c.submit("sleep 1000\n", "-q", queue, "-l", "select=1:ncpus=1", "-l", "walltime=1000")
	in2 := c.submit("true\n", "-q", queue, "-l", "select=1:ncpus=2")
	// A job outside that needs both vnodes for 100 s overlaps the window.
	outside := c.submit("true\n", "-l", "select=2:ncpus=2", "-l", "walltime=100")
	waitFor(t, 10*time.Second, "the conflict comment", func() bool {
		return str(c.job(outside)["comment"]) == "Not Running: Job would conflict with reservation or top job"
	})
	if st := str(c.job(in1)["job_state"]); st != "Q" || time.Now().After(start) {
		t.Fatalf("job in the reservation before its start: %s", st)
	}
	j := c.waitState(in1, 15*time.Second, "R")
	if time.Now().Before(start) || !strings.HasPrefix(str(j["exec_vnode"]), "("+node+":") {
		t.Errorf("job in the reservation ran at %v on %v (start %v, vnode %s)", time.Now(), j["exec_vnode"], start, node)
	}
	waitFor(t, 10*time.Second, "RN", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_RUNNING" })

	// The end: the running job is killed, the queued one goes back to
	// the default queue with a comment, the reservation and queue go.
	c.waitState(in1, 30*time.Second, "F")
	waitFor(t, 10*time.Second, "the queued job to be moved", func() bool { return str(c.job(in2)["queue"]) == "workq" })
	if cm := str(c.job(in2)["comment"]); !strings.Contains(cm, "Reservation "+id+" ended") && str(c.job(in2)["job_state"]) == "Q" {
		t.Errorf("moved job's comment: %q", cm)
	}
	r := c.run("pbs_rstat", id)
	if r.code != 236 || r.stderr != "pbs_rstat: Unknown Reservation Id\n" {
		t.Errorf("pbs_rstat after the end: %+v", r)
	}
	c.waitState(in2, 30*time.Second, "F")
	c.waitState(outside, 30*time.Second, "F")
}

func TestResvDenyDeleteAndErrors(t *testing.T) {
	c := startCluster(t, 1, 2)
	later := time.Now().Add(time.Hour)
	id, state := c.rsub("-I", "20", "-R", at(later), "-D", "60", "-l", "select=1:ncpus=8")
	if state != "DENIED" {
		t.Errorf("an impossible reservation: %s %s", id, state)
	}
	if r := c.run("pbs_rstat", id); r.code != 236 {
		t.Errorf("a denied reservation is listed: %+v", r)
	}
	id, state = c.rsub("-I", "20", "-R", at(later), "-E", at(later.Add(time.Minute)), "-l", "select=1:ncpus=1")
	if state != "CONFIRMED" {
		t.Fatalf("pbs_rsub -I: %s %s", id, state)
	}
	// Another user may not delete it; the owner may, silently.
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	if r := c.runAs(nobody, "", "pbs_rdel", id); r.code != 159 || r.stderr != "pbs_rdel: Unauthorized Request  "+id+"\n" {
		t.Errorf("pbs_rdel by another user: %+v", r)
	}
	queue := strings.TrimSuffix(id, ".e2e")
	job := c.submit("true\n", "-q", queue)
	if r := c.run("pbs_rdel", id); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("pbs_rdel: %+v", r)
	}
	if st := str(c.job(job)["job_state"]); st != "F" {
		t.Errorf("the reservation's job after pbs_rdel: %s", st)
	}
	if r := c.run("pbs_rdel", id); r.code != 236 || r.stderr != "pbs_rdel: Unknown Reservation Id "+id+"\n" {
		t.Errorf("pbs_rdel twice: %+v", r)
	}
	if r := c.run("pbs_rstat"); r.code != 0 || r.stdout != "" {
		t.Errorf("pbs_rstat with no reservations: %+v", r)
	}
	if r := c.run("pbs_rsub", "-R", at(later)); r.code == 0 || r.stderr != "pbs_rsub: Bad time specification(s)\n" {
		t.Errorf("pbs_rsub -R alone: %+v", r)
	}
	if r := c.run("pbs_rsub", "-R", "garbage", "-D", "10"); r.code != 2 || !strings.HasPrefix(r.stderr, "pbs_rsub: illegal -R value\n") {
		t.Errorf("pbs_rsub -R garbage: %+v", r)
	}
}

func TestResvAOEProvisionedBeforeStart(t *testing.T) {
	c := startCluster(t, 2, 2)
	c.provHook(localHook, "alarm = 20")
	c.provNode("node1", "app1,app2")
	start := time.Now().Add(12 * time.Second).Truncate(time.Second)
	id, _ := c.rsub("-R", at(start), "-D", "30", "-l", "select=1:ncpus=1:aoe=app1")
	queue := strings.TrimSuffix(id, ".e2e")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" })
	if nodes := c.resvAttr(id, "resv_nodes"); nodes != "(node1:aoe=app1:ncpus=1)" {
		t.Errorf("resv_nodes = %q", nodes)
	}
	// Provisioned before the start (the lead time is the estimate, 600 s
	// before anything was learned: at once).
	c.waitNode("node1", "current_aoe", "app1", 10*time.Second)
	if time.Now().After(start) {
		t.Fatalf("provisioning finished after the start")
	}
	if st := c.resvAttr(id, "reserve_state"); st != "RESV_CONFIRMED" {
		t.Errorf("state while provisioned early: %s", st)
	}
	// Jobs in it must ask for its AOE.
	r := c.runWithInput("true\n", "qsub", "-q", queue, "-l", "select=1:ncpus=1")
	if r.code == 0 || !strings.Contains(r.stderr, "Invalid provisioning request in chunk(s)") {
		t.Errorf("job without the reservation's AOE: %+v", r)
	}
	job := c.submit("sleep 2\n", "-q", queue, "-l", "select=1:ncpus=1:aoe=app1")
	j := c.waitState(job, 20*time.Second, "R", "F")
	if late := time.Since(start); late > 5*time.Second {
		t.Errorf("job started %s after the reservation's start", late)
	}
	if strings.Contains(str(j["exec_vnode"]), "aoe=") {
		t.Errorf("the job provisioned again: %v", j["exec_vnode"])
	}
	c.waitState(job, 20*time.Second, "F")
}
