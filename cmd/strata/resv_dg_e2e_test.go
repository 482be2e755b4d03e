//go:build e2e

package main

// End-to-end tests of degraded, maintenance and job-specific reservations
// (docs/reservations.md): every transition into and out of DG, replacement
// with and without an equivalent vnode, maintenance over a running job,
// both job-specific forms, and the two bugs found against OpenPBS (a start
// in the past accepted, resv-exclusive never shown).

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// nodeState is the state line of pbsnodes <node>.
func (c *cluster) nodeState(node string) string {
	c.t.Helper()
	for _, l := range strings.Split(c.must("pbsnodes", node), "\n") {
		if v, ok := strings.CutPrefix(l, "     state = "); ok {
			return v
		}
	}
	return ""
}

// resvNode is the single vnode of a one-chunk reservation.
func (c *cluster) resvNode(id string) string {
	nodes := c.resvAttr(id, "resv_nodes")
	return strings.TrimPrefix(strings.Split(nodes, ":")[0], "(")
}

func otherNode(n string) string {
	if n == "node1" {
		return "node2"
	}
	return "node1"
}

// TestResvDegradedAndReconfirmed: CO -> (DG) -> CO on another vnode; DG
// with no equivalent vnode (said in the comment and by pbs_rstat); DG ->
// CO when the vnode comes back; reserve_retry_time spaces the attempts.
func TestResvDegradedAndReconfirmed(t *testing.T) {
	c := startCluster(t, 2, 2)
	id, _ := c.rsub("-R", at(time.Now().Add(time.Hour)), "-D", "600", "-l", "select=1:ncpus=2")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" })
	first := c.resvNode(id)
	second := otherNode(first)

	// Replacement on an equivalent vnode at once.
	c.must("pbsnodes", "-o", first)
	waitFor(t, 10*time.Second, "reconfirmation on "+second, func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" && c.resvNode(id) == second
	})
	if cm := c.resvAttr(id, "comment"); !strings.Contains(cm, "replaced by "+second) {
		t.Errorf("comment after reconfirmation: %q", cm)
	}

	// No equivalent vnode: degraded, and pbs_rstat says DG.
	c.must("pbsnodes", "-o", second)
	waitFor(t, 10*time.Second, "DG", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_DEGRADED" })
	if sub := c.resvAttr(id, "reserve_substate"); sub != "10" {
		t.Errorf("reserve_substate = %s, want 10", sub)
	}
	waitFor(t, 10*time.Second, "the degraded-mode comment", func() bool {
		return strings.HasPrefix(c.resvAttr(id, "comment"), "Reservation is in degraded mode")
	})
	if out := c.must("pbs_rstat"); !strings.Contains(out, " DG ") {
		t.Errorf("pbs_rstat does not show DG:\n%s", out)
	}

	// The vnode comes back before any replacement: CO again, on it.
	c.must("pbsnodes", "-r", second)
	waitFor(t, 10*time.Second, "CO after the vnode came back", func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" && c.resvNode(id) == second
	})

	// With reserve_retry_time the next attempt waits for it.
	c.must("qmgr", "-c", "set server reserve_retry_time = 4")
	c.must("pbsnodes", "-o", second)
	waitFor(t, 10*time.Second, "DG with a retry time", func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_DEGRADED" && c.resvAttr(id, "reserve_retry") != ""
	})
	freed := time.Now()
	c.must("pbsnodes", "-r", first)
	waitFor(t, 20*time.Second, "reconfirmation at the retry time", func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" && c.resvNode(id) == first
	})
	t.Logf("replaced %s after the free vnode appeared (reserve_retry_time 4)", time.Since(freed).Round(100*time.Millisecond))
	c.must("pbs_rdel", id)
}

// TestResvRunningDegradedKeepsItsJob: a running reservation that loses a
// vnode stays RN with substate 10, its job on the vnode that is up keeps
// running, and the lost vnode is replaced when one is free.
func TestResvRunningDegradedKeepsItsJob(t *testing.T) {
	c := startCluster(t, 3, 2)
	id, _ := c.rsub("-R", at(time.Now().Add(4*time.Second)), "-D", "300", "-l", "select=2:ncpus=2")
	queue := strings.TrimSuffix(id, ".e2e")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" })
	nodes := c.resvAttr(id, "resv_nodes")
	spare := ""
	for _, n := range []string{"node1", "node2", "node3"} {
		if !strings.Contains(nodes, "("+n+":") {
			spare = n
		}
	}
	c.must("pbsnodes", "-o", spare) // no replacement yet
	jid := c.submit("sleep 1000\n", "-q", queue, "-l", "select=1:ncpus=2", "-l", "walltime=200")
	j := c.waitState(jid, 20*time.Second, "R")
	jobNode := strings.TrimPrefix(strings.Split(str(j["exec_vnode"]), ":")[0], "(")
	lost := ""
	for _, n := range []string{"node1", "node2", "node3"} {
		if n != spare && n != jobNode {
			lost = n
		}
	}
	c.must("pbsnodes", "-o", lost)
	waitFor(t, 10*time.Second, "RN substate 10", func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_RUNNING" && c.resvAttr(id, "reserve_substate") == "10"
	})
	c.must("pbsnodes", "-r", spare)
	waitFor(t, 10*time.Second, "replacement while running", func() bool {
		return c.resvAttr(id, "reserve_substate") == "5" && strings.Contains(c.resvAttr(id, "resv_nodes"), "("+spare+":")
	})
	if n := c.resvAttr(id, "resv_nodes"); !strings.Contains(n, "("+jobNode+":") || strings.Contains(n, "("+lost+":") {
		t.Errorf("resv_nodes %s: want %s kept and %s replaced", n, jobNode, lost)
	}
	if st := str(c.job(jid)["job_state"]); st != "R" {
		t.Errorf("the reservation's job is %s, want still R", st)
	}
	c.must("pbs_rdel", id)
}

var reMaintOut = regexp.MustCompile(`^(M\d+\.e2e) CONFIRMED\n$`)

// TestResvMaintenance: managers only (the attack as nobody), M<n>,
// confirmed at once over a running job, which keeps running; the vnode
// shows maintenance during the window; a reservation on the host over the
// same period is moved elsewhere.
func TestResvMaintenance(t *testing.T) {
	c := startCluster(t, 2, 2)
	busy := c.submit("sleep 1000\n", "-l", "select=1:host=node1:ncpus=1", "-l", "walltime=1000")
	c.waitState(busy, 20*time.Second, "R")
	rid, _ := c.rsub("-R", at(time.Now().Add(time.Hour)), "-D", "600", "-l", "select=1:host=node1:ncpus=1")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(rid, "reserve_state") == "RESV_CONFIRMED" })
	other, _ := c.rsub("-R", at(time.Now().Add(time.Hour)), "-D", "600", "-l", "select=1:ncpus=1")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(other, "reserve_state") == "RESV_CONFIRMED" })

	start, end := at(time.Now().Add(3*time.Second)), at(time.Now().Add(2*time.Hour))
	r := c.runAs(nobody, "", "pbs_rsub", "--hosts", "node1", "-R", start, "-E", end)
	if r.code != 159 || r.stderr != "pbs_rsub: Unauthorized Request\n" {
		t.Fatalf("maintenance reservation by nobody: %+v", r)
	}
	out := c.must("pbs_rsub", "--hosts", "node1", "-R", start, "-E", end)
	m := reMaintOut.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("pbs_rsub --hosts printed %q", out)
	}
	mid := m[1]
	if st := c.resvAttr(mid, "reserve_state"); st != "RESV_CONFIRMED" {
		t.Errorf("maintenance reservation state %s", st)
	}
	// The pinned reservation cannot move (IC, degraded); the other moves
	// to node2 if it was on node1.
	waitFor(t, 10*time.Second, "the pinned reservation in conflict", func() bool {
		return c.resvAttr(rid, "reserve_state") == "RESV_DEGRADED" && c.resvAttr(rid, "reserve_substate") == "12"
	})
	waitFor(t, 10*time.Second, "the other reservation off node1", func() bool {
		return c.resvAttr(other, "reserve_state") == "RESV_CONFIRMED" && c.resvNode(other) == "node2"
	})
	waitFor(t, 15*time.Second, "maintenance state", func() bool { return strings.Contains(c.nodeState("node1"), "maintenance") })
	late := c.submit("true\n", "-l", "select=1:host=node1:ncpus=1", "-l", "walltime=10")
	if st := str(c.job(busy)["job_state"]); st != "R" {
		t.Errorf("the job under maintenance is %s, want still R", st)
	}
	waitFor(t, 10*time.Second, "a comment on the job kept off node1", func() bool { return str(c.job(late)["comment"]) != "" })
	if st := str(c.job(late)["job_state"]); st != "Q" {
		t.Errorf("a job started on a vnode in maintenance: %s", st)
	}
	c.must("pbs_rdel", mid)
	waitFor(t, 10*time.Second, "maintenance cleared", func() bool { return !strings.Contains(c.nodeState("node1"), "maintenance") })
	waitFor(t, 10*time.Second, "the pinned reservation back", func() bool { return c.resvAttr(rid, "reserve_state") == "RESV_CONFIRMED" })
	c.waitState(late, 20*time.Second, "F")
}

// TestResvJobSpecific: qsub -W create_resv_from_job=true and pbs_rsub -W
// qmove=<job>, and the attack of a user making a reservation of someone
// else's job.
func TestResvJobSpecific(t *testing.T) {
	c := startCluster(t, 2, 2)
	jid := c.submit("sleep 1000\n", "-W", "create_resv_from_job=true", "-l", "select=1:ncpus=1", "-l", "walltime=300")
	c.waitState(jid, 20*time.Second, "R")
	var queue string
	waitFor(t, 10*time.Second, "the job in its reservation's queue", func() bool {
		queue = str(c.job(jid)["queue"])
		return strings.HasPrefix(queue, "R")
	})
	rid := queue + ".e2e"
	if st := c.resvAttr(rid, "reserve_state"); st != "RESV_RUNNING" || c.resvAttr(rid, "reserve_job") != jid {
		t.Errorf("reservation from the job: state %s job %s", st, c.resvAttr(rid, "reserve_job"))
	}
	if d := c.resvAttr(rid, "reserve_duration"); d != "300" {
		t.Errorf("reserve_duration = %s, want the job's walltime", d)
	}

	held := c.submit("sleep 1000\n", "-h", "-l", "select=1:ncpus=1", "-l", "walltime=120")
	r := c.runAs(nobody, "", "pbs_rsub", "-W", "qmove="+held)
	if r.code != 159 || r.stderr != "pbs_rsub: Unauthorized Request\n" {
		t.Errorf("qmove reservation of root's job by nobody: %+v", r)
	}
	qid, state := c.rsub("-I", "15", "-W", "qmove="+held)
	if state != "CONFIRMED" {
		t.Fatalf("pbs_rsub -W qmove: %s", state)
	}
	if q := str(c.job(held)["queue"]); q+".e2e" != qid {
		t.Errorf("job queue %s after confirmation of %s", q, qid)
	}
	c.must("qrls", held)
	c.waitState(held, 20*time.Second, "R")

	// pbs_rsub --job: a reservation of a running job, confirmed at once.
	run := c.submit("sleep 1000\n", "-l", "select=1:ncpus=1", "-l", "walltime=200")
	c.waitState(run, 20*time.Second, "R")
	if r := c.runAs(nobody, "", "pbs_rsub", "--job", run); r.code != 159 {
		t.Errorf("pbs_rsub --job of root's job by nobody: %+v", r)
	}
	jr, state := c.rsub("--job", run)
	if state != "CONFIRMED" || c.resvAttr(jr, "reserve_state") != "RESV_RUNNING" {
		t.Errorf("pbs_rsub --job: %s %s", state, c.resvAttr(jr, "reserve_state"))
	}
	if q := str(c.job(run)["queue"]); q+".e2e" != jr {
		t.Errorf("running job's queue %s, want %s's", q, jr)
	}
	c.must("qdel", jid, held, run)
	c.must("pbs_rdel", rid, qid, jr)
}

// TestResvBugsFoundAgainstOpenPBS: a start in the past is refused, and
// the vnode of a running place=excl reservation shows resv-exclusive.
func TestResvBugsFoundAgainstOpenPBS(t *testing.T) {
	c := startCluster(t, 1, 2)
	r := c.run("pbs_rsub", "-E", at(time.Now().Add(15*time.Second)), "-D", "20")
	if r.code == 0 || r.stderr != "pbs_rsub: Bad time specification(s)\n" {
		t.Errorf("a start 5 s ago: %+v", r)
	}
	id, _ := c.rsub("-R", at(time.Now().Add(3*time.Second)), "-D", "600", "-l", "select=1:ncpus=1", "-l", "place=excl")
	waitFor(t, 15*time.Second, "RN", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_RUNNING" })
	waitFor(t, 10*time.Second, "resv-exclusive", func() bool { return c.nodeState("node1") == "resv-exclusive" })
	// Its own jobs still run there; a job outside does not.
	in := c.submit("sleep 1000\n", "-q", strings.TrimSuffix(id, ".e2e"), "-l", "select=1:ncpus=1", "-l", "walltime=100")
	c.waitState(in, 20*time.Second, "R")
	out := c.submit("true\n", "-l", "select=1:ncpus=1", "-l", "walltime=10")
	waitFor(t, 10*time.Second, "a comment on the job outside", func() bool { return str(c.job(out)["comment"]) != "" })
	if st := str(c.job(out)["job_state"]); st != "Q" {
		t.Errorf("a job outside ran on a resv-exclusive vnode: %s", st)
	}
	c.must("pbs_rdel", id)
	c.waitState(out, 30*time.Second, "F")
}

// TestResvAOEReplacementProvisionedBeforeStart: an AOE reservation's
// vnode is reimaged for it before the start (the agent restarts: while the
// vnode is provisioning that is not a degradation); when the vnode then
// goes offline, the replacement is a vnode that offers the AOE, provisioned
// before the start (start minus the learned provisioning time), so the
// reservation's job starts on it at the start without provisioning.
func TestResvAOEReplacementProvisionedBeforeStart(t *testing.T) {
	c := startCluster(t, 2, 2)
	c.provHook(localHook, "alarm = 20")
	c.provNode("node1", "rhel9,rhel8")
	c.provNode("node2", "rhel9,rhel8")
	start := time.Now().Add(25 * time.Second).Truncate(time.Second)
	id, _ := c.rsub("-R", at(start), "-D", "60", "-l", "select=1:ncpus=1:aoe=rhel9")
	queue := strings.TrimSuffix(id, ".e2e")
	waitFor(t, 10*time.Second, "confirmation", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" })
	first := c.resvNode(id)
	c.waitNode(first, "current_aoe", "rhel9", 20*time.Second)
	waitFor(t, 10*time.Second, "CO after the reimage", func() bool { return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" })
	// Before provisioning vnodes were exempt, the reimage's agent restart
	// degraded the reservation and moved it away from its own new image.
	if n := c.resvNode(id); n != first {
		t.Fatalf("the reservation moved from %s to %s during its own reimage", first, n)
	}
	cur := first
	other := otherNode(cur)
	c.must("pbsnodes", "-o", cur)
	waitFor(t, 10*time.Second, "reconfirmation on "+other, func() bool {
		return c.resvAttr(id, "reserve_state") == "RESV_CONFIRMED" && c.resvNode(id) == other
	})
	if nodes := c.resvAttr(id, "resv_nodes"); nodes != "("+other+":aoe=rhel9:ncpus=1)" {
		t.Errorf("resv_nodes = %q", nodes)
	}
	// Provisioning starts at start minus the learned time (about 2 s here),
	// so it may end a little after the start on a loaded machine.
	c.waitNode(other, "current_aoe", "rhel9", time.Until(start)+5*time.Second)
	if late := time.Since(start); late > 5*time.Second {
		t.Errorf("the replacement was provisioned %s after the start", late)
	}
	job := c.submit("sleep 2\n", "-q", queue, "-l", "select=1:ncpus=1:aoe=rhel9")
	j := c.waitState(job, 40*time.Second, "R", "F")
	if late := time.Since(start); late > 8*time.Second {
		t.Errorf("job started %s after the reservation's start", late)
	}
	if ev := str(j["exec_vnode"]); !strings.HasPrefix(ev, "("+other+":") || strings.Contains(ev, "aoe=") {
		t.Errorf("job exec_vnode %q: want %s, no provisioning", ev, other)
	}
	c.waitState(job, 20*time.Second, "F")
}
