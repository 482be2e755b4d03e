package scheduler

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// resv builds a reservation of sel from start to end in state st.
func resv(t testing.TB, seq int64, sel string, start, end int64, st int, nodes ...string) *model.Reservation {
	t.Helper()
	s, err := model.ParseSelect(sel, testDefs)
	if err != nil {
		t.Fatal(err)
	}
	id := model.FormatResvID("R", seq, "svr")
	r := &model.Reservation{ID: id, Seq: seq, Queue: model.ResvQueueName(id), Select: s, Start: start, End: end, Duration: end - start, State: st, AOE: model.SelectAOE(s)}
	for _, n := range nodes {
		r.Nodes = append(r.Nodes, model.ExecChunk{Shares: []model.VnodeShare{{Vnode: n, Host: n, Amounts: map[string]float64{"ncpus": s[0].Consume["ncpus"]}}}})
	}
	return r
}

func decisions(p *Plan) map[string]model.ResvDecision {
	out := map[string]model.ResvDecision{}
	for _, d := range p.Resvs {
		out[d.ID] = d
	}
	return out
}

func TestResvConfirmAndDeny(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")}
	m := byName(vs)
	// n1 is busy until now+100; n2 until now+5000.
	r1 := runningOn(m, "1.svr", now, 100, 2, false, "n1")
	r2 := runningOn(m, "2.svr", now, 5000, 2, false, "n2")
	s := snapshot(vs)
	s.Now = now
	s.Running = []*model.Job{r1, r2}
	s.Reservations = []*model.Reservation{
		resv(t, 10, "1:ncpus=2", now+200, now+1200, model.ResvUnconfirmed),  // fits on n1
		resv(t, 11, "1:ncpus=2", now+300, now+1300, model.ResvUnconfirmed),  // n1 taken by R10, n2 busy: denied
		resv(t, 12, "1:ncpus=2", now+6000, now+7000, model.ResvUnconfirmed), // n1 after R10 ends
		resv(t, 13, "1:ncpus=8", now+6000, now+7000, model.ResvUnconfirmed), // never
	}
	p := Schedule(s)
	d := decisions(p)
	if !d["R10.svr"].Confirm || execOf(model.RunDecision{Exec: d["R10.svr"].Nodes}) != "(n1:ncpus=2)" {
		t.Errorf("R10: %+v", d["R10.svr"])
	}
	if d["R11.svr"].Confirm || d["R11.svr"].Reason != resvFailPrefix+msgResvNoFit {
		t.Errorf("R11 should be denied for resources: %+v", d["R11.svr"])
	}
	if !d["R12.svr"].Confirm {
		t.Errorf("R12: %+v", d["R12.svr"])
	}
	if d["R13.svr"].Confirm {
		t.Errorf("R13 can never fit: %+v", d["R13.svr"])
	}
}

func TestResvBlocksCalendarAndConfirmingCycleRunsJobs(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2")}
	s := snapshot(vs,
		job(t, 1, "1:ncpus=2", "", walltime(3000)), // would overlap the reservation
		job(t, 2, "1:ncpus=2", "", walltime(100)),  // ends before it starts
	)
	s.Now = now
	s.Reservations = []*model.Reservation{resv(t, 10, "1:ncpus=2", now+1000, now+2000, model.ResvUnconfirmed)}
	p := Schedule(s)
	if !decisions(p)["R10.svr"].Confirm {
		t.Fatalf("not confirmed: %+v", p.Resvs)
	}
	if got := runs(p); got[jobID(2)] == "" || got[jobID(1)] != "" {
		t.Errorf("runs in the confirming cycle: %v", got)
	}
	if cm := comments(p)[jobID(1)]; cm.Comment != prefixNotRunning+msgConflict {
		t.Errorf("comment of the overlapping job: %q", cm.Comment)
	}
	// Next cycle: the reservation is confirmed; an unknown walltime conflicts too.
	r := resv(t, 10, "1:ncpus=2", now+1000, now+2000, model.ResvConfirmed, "n1")
	s = snapshot([]*model.Vnode{vnode("n1", "ncpus=2")}, job(t, 3, "1:ncpus=1", ""))
	s.Now = now
	s.Reservations = []*model.Reservation{r}
	p = Schedule(s)
	if len(p.Runs) != 0 || comments(p)[jobID(3)].Comment != prefixNotRunning+msgConflict {
		t.Errorf("job without walltime next to a reservation: runs %v comments %v", runs(p), p.Comments)
	}
}

func TestResvJobsRunInsideOnly(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=4"), vnode("n2", "ncpus=4")}
	r := resv(t, 10, "1:ncpus=2", now-10, now+1000, model.ResvRunning, "n2")
	in1 := job(t, 11, "1:ncpus=1", "", inQueue("R10"))
	in2 := job(t, 12, "1:ncpus=1", "", inQueue("R10"))
	in3 := job(t, 13, "1:ncpus=1", "", inQueue("R10")) // over the reservation's 2 cpus
	out := job(t, 14, "1:ncpus=4", "", walltime(5000))
	s := snapshot(vs, in1, in2, in3, out)
	s.Now = now
	s.Queues["R10"] = Queue{Name: "R10"}
	s.Reservations = []*model.Reservation{r}
	p := Schedule(s)
	got := runs(p)
	if got[in1.ID] != "(n2:ncpus=1)" || got[in2.ID] != "(n2:ncpus=1)" || got[in3.ID] != "" {
		t.Errorf("jobs inside: %v", got)
	}
	// The outside job takes n1 (n2 is reserved), whatever its walltime.
	if got[out.ID] != "(n1:ncpus=4)" {
		t.Errorf("job outside: %v", got)
	}
}

func TestResvAOELeadTime(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2,aoe=os1")}
	vs[0].ProvisionEnable = true
	s := snapshot(vs, job(t, 1, "1:ncpus=1", "", walltime(700)))
	s.Now = now
	s.Provision = ProvisionInfo{Enabled: true, Estimates: map[string]int64{"os1": 400}}
	// Starts in 1000 s: with 400 s of provisioning, the vnode is held
	// from now+600, so a 700 s job conflicts.
	s.Reservations = []*model.Reservation{resv(t, 10, "1:ncpus=2:aoe=os1", now+1000, now+2000, model.ResvUnconfirmed)}
	p := Schedule(s)
	d := decisions(p)["R10.svr"]
	if !d.Confirm || d.Nodes[0].Shares[0].AOE != "os1" {
		t.Fatalf("AOE reservation: %+v", d)
	}
	if len(p.Runs) != 0 {
		t.Errorf("a job overlapping the provisioning lead ran: %v", runs(p))
	}
}
