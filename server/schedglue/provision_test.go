package schedglue

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestAOEProvisioningDecision: a job asking for an AOE (aoe=os2) runs on
// a vnode that offers it; when the vnode runs another AOE it is
// provisioned first (substate 71, the vnode waits for provisioning), which
// needs a provision hook on the server and provision_enable on the vnode.
// Otherwise the job stays queued with PBS's comment.
func TestAOEProvisioningDecision(t *testing.T) {
	const now = 1000
	hook := map[string]model.Hook{"prov": {Name: "prov", Events: []string{"provision"}, Enabled: true, Script: "exit 0"}}
	for _, tc := range []struct {
		name    string
		hooks   map[string]model.Hook
		policy  string
		hosts   [][3]string // name, resources_available, current_aoe
		want    seen
		wantVn  string // the vnode's state (pbsnodes) after the cycle, for the chosen vnode
		vnodeOf string
	}{
		{name: "vnode on another AOE: provisioned first", hooks: hook,
			hosts:  [][3]string{{"n1", "ncpus=2,aoe=os1+os2", "os1"}},
			want:   seen{State: "R/71", ExecVnode: "(n1:aoe=os2:ncpus=1)"},
			wantVn: "wait-provisioning", vnodeOf: "n1"},
		{name: "vnode already on the AOE: runs at once", hooks: hook,
			hosts:  [][3]string{{"n1", "ncpus=2,aoe=os1+os2", "os2"}},
			want:   seen{State: "R/41", ExecVnode: "(n1:ncpus=1)"},
			wantVn: "free", vnodeOf: "n1"},
		{name: "avoid_provision prefers the vnode on the AOE", hooks: hook, policy: "avoid_provision",
			hosts:  [][3]string{{"n1", "ncpus=2,aoe=os1+os2", "os1"}, {"n2", "ncpus=2,aoe=os1+os2", "os2"}},
			want:   seen{State: "R/41", ExecVnode: "(n2:ncpus=1)"},
			wantVn: "free", vnodeOf: "n2"},
		{name: "no provision hook: provisioning disabled on the server",
			hosts: [][3]string{{"n1", "ncpus=2,aoe=os1+os2", "os1"}},
			want:  seen{State: "Q/10", Comment: "Not Running: Cannot provision, provisioning disabled on server"}},
		{name: "no vnode offers the AOE", hooks: hook,
			hosts: [][3]string{{"n1", "ncpus=2,aoe=os1", "os1"}},
			want:  seen{State: "Q/10", Comment: "Can Never Run: Insufficient amount of resource: aoe (R: os2 A: none T: none)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, model.ServerConfig{Hooks: tc.hooks, Sched: model.SchedConfig{ProvisionPolicy: tc.policy}})
			for _, h := range tc.hosts {
				f.host(h[0], h[1], h[2])
			}
			id := f.submit(job{sel: "1:ncpus=1:aoe=os2"}, 100)
			f.cycle(now)
			want := tc.want
			if want.State[0] == 'R' {
				want.Comment = ran(now, want.ExecVnode)
			}
			if got := f.seen(id); got != want {
				t.Errorf("job: %+v, want %+v", got, want)
			}
			if tc.vnodeOf != "" {
				if got := f.State().Vnode(tc.vnodeOf).State.String(); got != tc.wantVn {
					t.Errorf("vnode %s: %s, want %s", tc.vnodeOf, got, tc.wantVn)
				}
			}
		})
	}
}
