package raftstore

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// confirmedResv submits and confirms a reservation on n1 (id R0.svr).
func confirmedResv(t *testing.T, h *harness) {
	t.Helper()
	registerNode(h, "n1", "2")
	h.apply(&SubmitResv{Resv: testResv("r", 1000, 2000), Now: 100})
	nodes := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: "R0.svr", Confirm: true, Nodes: nodes}}})
}

func TestResvAlterDeniedRevertsConfirmedApplies(t *testing.T) {
	h := newHarness(t)
	confirmedResv(t, h)
	h.apply(&AlterResv{ID: "R0.svr", Requestor: "alice@h", Now: 120, Reconfirm: true, Start: 1000, End: 3000, Duration: 2000})
	r := h.snap().Reservation("R0.svr")
	if r.State != model.ResvBeingAltered || r.End != 3000 || r.Alter == nil || r.Alter.End != 2000 {
		t.Fatalf("while altered: %+v", r)
	}
	// A second alteration waits for the verdict on the first.
	if err, _ := h.apply(&AlterResv{ID: "R0.svr", Now: 121, Reconfirm: true, Start: 1000, End: 4000, Duration: 3000}).(error); err == nil {
		t.Errorf("a second alteration was accepted while the first is pending")
	}
	h.apply(&ApplyPlan{Now: 130, Resvs: []model.ResvDecision{{ID: "R0.svr", Reason: "no room"}}})
	r = h.snap().Reservation("R0.svr")
	if r.State != model.ResvConfirmed || r.End != 2000 || r.Duration != 1000 || r.Alter != nil ||
		r.AlterOutcome != model.ResvAlterDenied || r.Comment != "Reservation alter denied: no room" || len(r.Nodes) != 1 {
		t.Errorf("after denial: %+v", r)
	}
	moved := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n2", Host: "n2", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&AlterResv{ID: "R0.svr", Now: 140, Reconfirm: true, Start: 1000, End: 3000, Duration: 2000})
	h.apply(&ApplyPlan{Now: 150, Resvs: []model.ResvDecision{{ID: "R0.svr", Confirm: true, Nodes: moved}}})
	r = h.snap().Reservation("R0.svr")
	if r.State != model.ResvConfirmed || r.End != 3000 || r.AlterOutcome != model.ResvAlterConfirmed || r.Nodes[0].Shares[0].Vnode != "n2" {
		t.Errorf("after confirmation: %+v", r)
	}
}

func TestResvAlterForcedKeepsNewTimes(t *testing.T) {
	h := newHarness(t)
	confirmedResv(t, h)
	h.apply(&AlterResv{ID: "R0.svr", Now: 120, Reconfirm: true, StartChanged: true, Start: 1500, End: 2500, Duration: 1000, Force: true})
	h.apply(&ApplyPlan{Now: 130, Resvs: []model.ResvDecision{{ID: "R0.svr", Reason: "no room"}}})
	r := h.snap().Reservation("R0.svr")
	if r.State != model.ResvConfirmed || r.Start != 1500 || r.AlterOutcome != model.ResvAlterConfirmed || r.Nodes[0].Shares[0].Vnode != "n1" {
		t.Errorf("forced alteration after a denial: %+v", r)
	}
	// Direct (no scheduler): applied at once.
	h.apply(&AlterResv{ID: "R0.svr", Now: 140, Reconfirm: true, Start: 1500, End: 2600, Duration: 1100, Force: true, Direct: true})
	if r := h.snap().Reservation("R0.svr"); r.State != model.ResvConfirmed || r.End != 2600 {
		t.Errorf("direct forced alteration: %+v", r)
	}
}

func TestResvAlterRunningStartMovedBackToConfirmed(t *testing.T) {
	h := newHarness(t)
	confirmedResv(t, h)
	h.apply(&ResvEvent{ID: "R0.svr", Kind: ResvEventStart, Now: 1000})
	h.apply(&AlterResv{ID: "R0.svr", Now: 1010, Reconfirm: true, StartChanged: true, Start: 1500, End: 2500, Duration: 1000})
	h.apply(&ApplyPlan{Now: 1020, Resvs: []model.ResvDecision{{ID: "R0.svr", Confirm: true}}})
	r := h.snap().Reservation("R0.svr")
	if r.State != model.ResvConfirmed || h.snap().Config().Queues["R0"].Started {
		t.Errorf("a running reservation moved later: state %d, queue started %v", r.State, h.snap().Config().Queues["R0"].Started)
	}
	// With a job in it, the start cannot move (checked again in the FSM).
	h.apply(&ResvEvent{ID: "R0.svr", Kind: ResvEventStart, Now: 1500})
	j := testJob("in")
	j.Queue = "R0"
	h.apply(&SubmitJob{Job: j, Now: 1510})
	out := h.apply(&AlterResv{ID: "R0.svr", Now: 1520, Reconfirm: true, StartChanged: true, Start: 1800, End: 2800, Duration: 1000})
	if pe, ok := out.(*model.PBSError); !ok || pe.Code != model.PBSEResvNotEmpty {
		t.Errorf("moving the start of a running reservation with a job: %v", out)
	}
}

func TestResvAlterACLsAndMail(t *testing.T) {
	h := newHarness(t)
	confirmedResv(t, h)
	users, groups, hosts := []string{"alice@h", "bob"}, []string{"staff"}, []string{"login1"}
	name, mp := "workshop", "abe"
	h.apply(&AlterResv{ID: "R0.svr", Now: 120, Name: &name, Users: &users, Groups: &groups, Hosts: &hosts, MailPoints: &mp})
	r := h.snap().Reservation("R0.svr")
	q := h.snap().Config().Queues["R0"]
	if r.State != model.ResvConfirmed || r.Name != "workshop" || r.MailPoints != "abe" || len(r.AuthorizedUsers) != 2 {
		t.Errorf("after the alteration: %+v", r)
	}
	if !q.ACLGroupEnable || q.ACLGroups[0] != "staff" || !q.ACLHostEnable || q.ACLHosts[0] != "login1" || len(q.ACLUsers) != 2 {
		t.Errorf("queue ACLs: %+v", q)
	}
}

func TestResvAlterAbandonedAtTheEnd(t *testing.T) {
	h := newHarness(t)
	confirmedResv(t, h)
	h.apply(&AlterResv{ID: "R0.svr", Now: 120, Reconfirm: true, Start: 1000, End: 3000, Duration: 2000})
	h.apply(&AlterResv{ID: "R0.svr", Abandon: true, Now: 1999}) // too early: nothing
	if r := h.snap().Reservation("R0.svr"); r.State != model.ResvBeingAltered {
		t.Fatalf("abandoned before the end: %+v", r)
	}
	h.apply(&AlterResv{ID: "R0.svr", Abandon: true, Now: 2000})
	r := h.snap().Reservation("R0.svr")
	if r.State != model.ResvConfirmed || r.End != 2000 || r.AlterOutcome != model.ResvAlterDenied {
		t.Errorf("after abandoning: %+v", r)
	}
}

func TestResvShrinkRechecksItsRunningJobs(t *testing.T) {
	h := newHarness(t)
	confirmedResv(t, h) // R0 holds n1:ncpus=2
	h.apply(&ResvEvent{ID: "R0.svr", Kind: ResvEventStart, Now: 1000})
	j := testJob("in")
	j.Queue = "R0"
	jid := h.apply(&SubmitJob{Job: j, Now: 1001}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 1002, Runs: []model.RunDecision{{JobID: jid, Exec: exec}}})
	// The server computed a shrink from a view without the job: refused.
	half := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 1}}}}}
	sel, _ := model.ParseSelect("1:ncpus=1", model.BuiltinResources())
	out := h.apply(&AlterResv{ID: "R0.svr", Now: 1003, Shrink: true, Nodes: half, Select: sel, Start: 1000, End: 2000, Duration: 1000})
	if pe, ok := out.(*model.PBSError); !ok || pe.Code != model.PBSEResvNotEmpty {
		t.Fatalf("shrinking below its running job: %v", out)
	}
	if r := h.snap().Reservation("R0.svr"); r.Nodes[0].Shares[0].Amounts["ncpus"] != 2 {
		t.Errorf("a refused shrink changed the nodes: %+v", r.Nodes)
	}
	out = h.apply(&AlterResv{ID: "R0.svr", Now: 1004, Shrink: true, Nodes: exec, Select: sel, Start: 1000, End: 2000, Duration: 1000})
	if r := h.snap().Reservation("R0.svr"); out != nil || r.State != model.ResvRunning || r.Select.String() != "1:ncpus=1" {
		t.Errorf("shrink that keeps the job: %v %+v", out, r)
	}
}

func TestResvAlterStandingOccurrenceOnly(t *testing.T) {
	h := newHarness(t)
	registerNode(h, "n1", "2")
	r := testResv("s", 1000, 1100)
	r.Occurrences = []int64{1000, 5000, 9000}
	h.apply(&SubmitResv{Resv: r, Now: 100})
	nodes := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 110, Resvs: []model.ResvDecision{{ID: "S0.svr", Confirm: true, Nodes: nodes}}})
	h.apply(&AlterResv{ID: "S0.svr", Now: 120, Reconfirm: true, Start: 1000, End: 1500, Duration: 500})
	h.apply(&ApplyPlan{Now: 130, Resvs: []model.ResvDecision{{ID: "S0.svr", Confirm: true}}})
	got := h.snap().Reservation("S0.svr")
	if got.Duration != 500 || got.End != 1500 || got.LaterDuration() != 100 {
		t.Fatalf("after altering the first occurrence: %+v", got)
	}
	h.apply(&ResvEvent{ID: "S0.svr", Kind: ResvEventStart, Now: 1000})
	h.apply(&ResvEvent{ID: "S0.svr", Kind: ResvEventEnd, Now: 1500})
	got = h.snap().Reservation("S0.svr")
	if got.Index != 2 || got.Start != 5000 || got.End != 5100 || got.Duration != 100 || got.OccurrenceDuration != 0 {
		t.Errorf("the next occurrence: %+v", got)
	}
	// A denied alteration puts the standing duration back too.
	h.apply(&AlterResv{ID: "S0.svr", Now: 1600, Reconfirm: true, Start: 5000, End: 5300, Duration: 300})
	h.apply(&ApplyPlan{Now: 1610, Resvs: []model.ResvDecision{{ID: "S0.svr", Reason: "no room"}}})
	if got = h.snap().Reservation("S0.svr"); got.Duration != 100 || got.OccurrenceDuration != 0 {
		t.Errorf("after a denied alteration: %+v", got)
	}
}
