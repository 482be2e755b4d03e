package scheduler

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// degraded marks r degraded (DG before its start, substate DG running).
func degraded(r *model.Reservation) *model.Reservation {
	if r.State == model.ResvRunning {
		r.Substate = model.ResvDegraded
	} else {
		r.State, r.Substate = model.ResvDegraded, model.ResvDegraded
	}
	return r
}

// TestDegradedResvReplacedOnAnEquivalentVnode: the down vnode's chunk
// moves to a free vnode with the same resources; the kept one stays.
func TestDegradedResvReplacedOnAnEquivalentVnode(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2"), vnode("n3", "ncpus=1"), vnode("n4", "ncpus=2")}
	vs[1].State = model.NodeDown
	s := snapshot(vs)
	s.Now = now
	s.Reservations = []*model.Reservation{degraded(resv(t, 10, "2:ncpus=2", now+100, now+1000, model.ResvConfirmed, "n1", "n2"))}
	p := Schedule(s)
	d := decisions(p)["R10.svr"]
	if !d.Reconfirm || !d.Confirm {
		t.Fatalf("not reconfirmed: %+v", p.Resvs)
	}
	if got := execOf(model.RunDecision{Exec: d.Nodes}); got != "(n1:ncpus=2)+(n4:ncpus=2)" {
		t.Errorf("new vnodes %s, want n1 kept and n4 (n3 is too small)", got)
	}
}

// TestDegradedResvWithoutReplacement: no equivalent vnode is free over
// the period: the failure is said once (no retry time) and not repeated.
func TestDegradedResvWithoutReplacement(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")}
	vs[0].State = model.NodeOffline
	m := byName(vs)
	busy := runningOn(m, "1.svr", now, 5000, 2, false, "n2") // n2 busy over the whole period
	s := snapshot(vs)
	s.Now = now
	s.Running = []*model.Job{busy}
	r := degraded(resv(t, 10, "1:ncpus=2", now+100, now+1000, model.ResvConfirmed, "n1"))
	s.Reservations = []*model.Reservation{r}
	d, ok := decisions(Schedule(s))["R10.svr"]
	if !ok || d.Confirm || !d.Reconfirm || !strings.Contains(d.Reason, msgResvNoFit) {
		t.Fatalf("failure verdict: %+v %v", d, ok)
	}
	r.Comment = msgDegradedMode + ": " + msgResvNoFit
	if d, ok := decisions(Schedule(s))["R10.svr"]; ok {
		t.Errorf("failure repeated every cycle: %+v", d)
	}
	// With reserve_retry_time set (RetryAt) nothing is tried before it.
	r.RetryAt = now + 50
	if d, ok := decisions(Schedule(s))["R10.svr"]; ok {
		t.Errorf("tried before its retry time: %+v", d)
	}
}

// TestRunningDegradedResvKeepsItsJobs: a running reservation's job stays
// on the vnode that is up, new jobs inside still run there, and the
// replacement is found from now.
func TestRunningDegradedResvKeepsItsJobs(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2"), vnode("n3", "ncpus=2")}
	vs[1].State = model.NodeDown
	r := degraded(resv(t, 10, "2:ncpus=2", now-10, now+1000, model.ResvRunning, "n1", "n2"))
	in := job(t, 11, "1:ncpus=1", "", inQueue("R10"))
	s := snapshot(vs, in)
	s.Now = now
	s.Queues["R10"] = Queue{Name: "R10"}
	s.Reservations = []*model.Reservation{r}
	p := Schedule(s)
	d := decisions(p)["R10.svr"]
	if got := execOf(model.RunDecision{Exec: d.Nodes}); !d.Confirm || got != "(n1:ncpus=2)+(n3:ncpus=2)" {
		t.Errorf("replacement while running: %+v %s", d, got)
	}
	if got := runs(p)[in.ID]; got != "(n1:ncpus=1)" {
		t.Errorf("job inside the degraded reservation: %q", got)
	}
}

// TestDegradedAOEResvNeedsAProvisionableVnode: the replacement of an AOE
// reservation must offer the AOE and be provisionable, and it is held
// from the provisioning lead before the start.
func TestDegradedAOEResvNeedsAProvisionableVnode(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2,aoe=os1"), vnode("n2", "ncpus=2"), vnode("n3", "ncpus=2,aoe=os1")}
	vs[0].State = model.NodeDown
	vs[0].ProvisionEnable, vs[2].ProvisionEnable = true, true
	s := snapshot(vs, job(t, 1, "1:ncpus=2", "", walltime(700)))
	s.Now = now
	s.Provision = ProvisionInfo{Enabled: true, Estimates: map[string]int64{"os1": 400}}
	r := degraded(resv(t, 10, "1:ncpus=2:aoe=os1", now+1000, now+2000, model.ResvConfirmed, "n1"))
	r.Nodes[0].Shares[0].AOE = "os1"
	s.Reservations = []*model.Reservation{r}
	p := Schedule(s)
	d := decisions(p)["R10.svr"]
	if !d.Confirm || d.Nodes[0].Shares[0].Vnode != "n3" || d.Nodes[0].Shares[0].AOE != "os1" {
		t.Fatalf("AOE replacement: %+v", d)
	}
	// n3 is held from now+600 (start minus the 400 s lead): the 700 s job
	// must not take it; n2 has no os1 but may run it.
	if got := runs(p)[jobID(1)]; got != "(n2:ncpus=2)" {
		t.Errorf("job next to the replacement: %q", got)
	}
}

// TestASAPResvStartsWhenItFits: an ASAP (qmove) reservation starts at the
// first time its request fits.
func TestASAPResvStartsWhenItFits(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2")}
	m := byName(vs)
	busy := runningOn(m, "1.svr", now, 300, 2, false, "n1")
	s := snapshot(vs)
	s.Now = now
	s.Running = []*model.Job{busy}
	r := resv(t, 10, "1:ncpus=2", now, now+100, model.ResvUnconfirmed)
	r.ASAP = true
	s.Reservations = []*model.Reservation{r}
	d := decisions(Schedule(s))["R10.svr"]
	if !d.Confirm || d.Start != busy.Stime+300 {
		t.Errorf("ASAP: %+v (busy until %d)", d, busy.Stime+300)
	}
}
