package scheduler

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func onAOE(a string) vnodeOpt { return func(v *model.Vnode) { v.CurrentAOE = a } }
func provEnabled() vnodeOpt   { return func(v *model.Vnode) { v.ProvisionEnable = true } }

// provExec renders a decision with the AOE marks: "(n1:aoe=A)+(n2)".
func provExec(d model.RunDecision) string {
	var chunks []string
	for _, ec := range d.Exec {
		var shares []string
		for _, s := range ec.Shares {
			p := s.Vnode
			if s.AOE != "" {
				p += ":aoe=" + s.AOE
			}
			shares = append(shares, p)
		}
		chunks = append(chunks, "("+strings.Join(shares, "+")+")")
	}
	return strings.Join(chunks, "+")
}

func provSnap(policy string, vnodes []*model.Vnode, jobs ...*model.Job) *Snapshot {
	s := snapshot(vnodes, jobs...)
	s.Provision = ProvisionInfo{Enabled: true, Policy: policy}
	return s
}

func TestAggressiveIgnoresCurrentAOE(t *testing.T) {
	vs := []*model.Vnode{
		vnode("n1", "ncpus=2,aoe=A,B", onAOE("B"), provEnabled(), prio(10)),
		vnode("n2", "ncpus=2,aoe=A,B", onAOE("A"), provEnabled()),
	}
	p := Schedule(provSnap("", vs, job(t, 1, "1:ncpus=1:aoe=A", "")))
	if len(p.Runs) != 1 || provExec(p.Runs[0]) != "(n1:aoe=A)" {
		t.Fatalf("runs %+v, want n1 provisioned (sort_priority first)", runs(p))
	}
}

func TestAvoidProvisionRanks(t *testing.T) {
	vs := []*model.Vnode{
		vnode("n1", "ncpus=1,aoe=A,B", onAOE("B"), provEnabled(), prio(30)),
		vnode("n2", "ncpus=1,aoe=A,B", provEnabled(), prio(20)),
		vnode("n3", "ncpus=1,aoe=A,B", onAOE("A"), provEnabled(), prio(10)),
		vnode("n4", "ncpus=1,aoe=A,B", onAOE("A"), provEnabled(), prio(5)),
	}
	// Rank 1 (on A) first in sort order, then no AOE, then another AOE.
	p := Schedule(provSnap(AvoidProvision, vs, job(t, 1, "4:ncpus=1:aoe=A", "")))
	if len(p.Runs) != 1 || provExec(p.Runs[0]) != "(n3)+(n4)+(n2:aoe=A)+(n1:aoe=A)" {
		t.Fatalf("avoid: %v", provExec(p.Runs[0]))
	}
	p = Schedule(provSnap(AvoidProvision, vs, job(t, 1, "1:ncpus=1:aoe=A", "")))
	if len(p.Runs) != 1 || provExec(p.Runs[0]) != "(n3)" {
		t.Fatalf("avoid one: %v", runs(p))
	}
}

func TestProvisionEligibilityComments(t *testing.T) {
	cases := []struct {
		name    string
		enabled bool
		vnodes  []*model.Vnode
		want    string
	}{
		{"server disabled", false, []*model.Vnode{vnode("n1", "ncpus=2,aoe=A", provEnabled())}, "Not Running: Cannot provision, provisioning disabled on server"},
		{"vnode disabled", true, []*model.Vnode{vnode("n1", "ncpus=2,aoe=A")}, "Not Running: Cannot provision, provisioning disabled on vnode"},
		{"host runs a job", true, []*model.Vnode{vnode("n1", "ncpus=2,aoe=A", provEnabled(), running("9.svr", 1))}, "Not Running: Provision conflict with existing job/reservation"},
		{"other vnode of host busy", true, []*model.Vnode{
			vnode("n1a", "ncpus=2,aoe=A", provEnabled(), onHost("n1")),
			vnode("n1b", "ncpus=2", provEnabled(), onHost("n1"), running("9.svr", 1)),
		}, "Not Running: Provision conflict with existing job/reservation"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := provSnap("", tc.vnodes, job(t, 1, "1:ncpus=1:aoe=A", ""))
			s.Provision.Enabled = tc.enabled
			p := Schedule(s)
			if len(p.Runs) != 0 {
				t.Fatalf("ran: %v", runs(p))
			}
			c := comments(p)[jobID(1)]
			if c.Comment != tc.want || c.NeverRun {
				t.Fatalf("comment %+v, want %q", c, tc.want)
			}
		})
	}
	// On the AOE already: no provisioning needed, nothing is checked.
	s := provSnap("", []*model.Vnode{vnode("n1", "ncpus=2,aoe=A", onAOE("A"), running("9.svr", 1))}, job(t, 1, "1:ncpus=1:aoe=A", ""))
	s.Provision.Enabled = false
	if p := Schedule(s); len(p.Runs) != 1 || provExec(p.Runs[0]) != "(n1)" {
		t.Fatalf("on AOE: %v %v", runs(p), comments(p))
	}
}

func TestMultiVnodeHostProvisionedAsUnit(t *testing.T) {
	vs := []*model.Vnode{
		vnode("h1a", "ncpus=1,aoe=A", provEnabled(), onHost("h1")),
		vnode("h1b", "ncpus=1,aoe=A", provEnabled(), onHost("h1")),
		vnode("h2", "ncpus=1"),
	}
	// Job 1 provisions h1 through h1a; job 2 (no AOE) must not take h1b.
	p := Schedule(provSnap("", vs, job(t, 1, "1:ncpus=1:aoe=A", ""), job(t, 2, "1:ncpus=1", "")))
	r := map[string]string{}
	for _, d := range p.Runs {
		r[d.JobID] = provExec(d)
	}
	if r[jobID(1)] != "(h1a:aoe=A)" || r[jobID(2)] != "(h2)" {
		t.Fatalf("runs %v", r)
	}
	// Mixed chunks: the non-AOE chunk is placed normally; on the host
	// being provisioned it shares the host's new AOE.
	p = Schedule(provSnap("", vs, job(t, 1, "1:ncpus=1:aoe=A+1:ncpus=1", "")))
	if len(p.Runs) != 1 || provExec(p.Runs[0]) != "(h1a:aoe=A)+(h1b:aoe=A)" {
		t.Fatalf("mixed %v", provExec(p.Runs[0]))
	}
	p = Schedule(provSnap("", vs, job(t, 1, "1:ncpus=1:aoe=A+1:ncpus=1", "", func(j *model.Job) { j.Place.Arrangement = model.PlaceScatter })))
	if len(p.Runs) != 1 || provExec(p.Runs[0]) != "(h1a:aoe=A)+(h2)" {
		t.Fatalf("mixed scatter %v", provExec(p.Runs[0]))
	}
}

func TestProvisionTimeInEstimates(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=1,aoe=A", provEnabled(), running("9.svr", 1))}
	run := job(t, 9, "1:ncpus=1", "")
	run.State, run.Stime = model.StateRunning, 1000
	run.Exec = []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 1}}}}}
	run.ResourceList = map[string]string{"walltime": "100"}
	top := job(t, 1, "1:ncpus=1:aoe=A", "")
	top.ResourceList = map[string]string{"walltime": "100"}
	after := job(t, 2, "1:ncpus=1", "")
	after.ResourceList = map[string]string{"walltime": "100"}
	s := provSnap("", vs, top)
	s.Now = 1000
	s.Running = []*model.Job{run}
	s.Config.StrictOrdering, s.Config.BackfillDepth = true, 1
	s.Provision.Estimates = map[string]int64{"A": 30}
	c := newCycle(s)
	if d := c.duration(top); d != 130 {
		t.Fatalf("duration with learned estimate: %d, want 130", d)
	}
	s.Provision.Estimates = nil
	if d := c.duration(top); d != 700 {
		t.Fatalf("duration with default estimate: %d, want 700", d)
	}
	if d := c.duration(after); d != 100 {
		t.Fatalf("no AOE: %d", d)
	}
	// The slot starts when the running job ends (1100); n1 is not on A,
	// so the job itself starts after the default 600 s of provisioning.
	p := Schedule(s)
	if len(p.Estimates) != 1 || p.Estimates[0].Start != 1700 {
		t.Fatalf("estimates %+v %+v", p.Estimates, p.Comments)
	}
}
