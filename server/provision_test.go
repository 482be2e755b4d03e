package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// TestProvisionServerMode: the leader's dispatcher runs a provision hook in
// the server (provision_mode = server): an application AOE (exit 1) puts
// the vnode on the AOE and the job runs there; a hook killed at its alarm
// offlines the vnode with PBS's comment and requeues the job.
func TestProvisionServerMode(t *testing.T) {
	cl := newCluster(t, "4")
	hook := func(body, alarm string) {
		t.Helper()
		cl.qmgr("delete", "hook", "prov")
		cl.mustQmgr("create", "hook", "prov", "event=provision")
		cl.mustQmgr("set", "hook", "prov", "provision_mode=server", "alarm="+alarm)
		if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "prov",
			ContentType: "application/x-executable", Content: "#!/bin/sh\n" + body + "\n"}); err != nil {
			t.Fatal(err)
		}
	}
	cl.mustQmgr("set", "node", "n1", "provision_enable=true", "resources_available.aoe=app1,app2")
	cl.mustQmgr("set", "server", "", "scheduling=true")

	hook("exit 1", "20")
	id := cl.mustSubmit(func(r *api.SubmitRequest) { r.Resources = map[string]string{"select": "1:ncpus=1:aoe=app2"} })
	// R at once (substate 71, provisioning), then 41 once the hook is done.
	deadline := time.Now().Add(20 * time.Second)
	for cl.job(id).Substate != model.SubPrerun {
		if time.Now().After(deadline) {
			t.Fatalf("job %s never left provisioning: %+v", id, cl.job(id).Comment)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v := cl.vnode("n1"); v.CurrentAOE != "app2" {
		t.Errorf("current_aoe %q after provisioning, want app2", v.CurrentAOE)
	}
	cl.event(id, api.EventStarted, 0)
	cl.event(id, api.EventEnded, 0)
	cl.waitState(id, model.StateFinished)

	hook("sleep 30", "1")
	id = cl.mustSubmit(func(r *api.SubmitRequest) { r.Resources = map[string]string{"select": "1:ncpus=1:aoe=app1"} })
	deadline = time.Now().Add(20 * time.Second)
	for {
		v := cl.vnode("n1")
		if v.State&model.NodeOffline != 0 && strings.Contains(v.Comment, "failed provisioning") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("vnode after a provisioning timeout: %s %q", v.State, v.Comment)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if j := cl.job(id); j.State != model.StateQueued {
		t.Errorf("job after a provisioning timeout: %s (%s)", j.State, j.Comment)
	}
}

func (cl *cluster) vnode(name string) *model.Vnode {
	cl.t.Helper()
	resp, err := cl.c.Nodes(cl.ctx)
	if err != nil {
		cl.t.Fatal(err)
	}
	for _, v := range resp.Vnodes {
		if v.Name == name {
			return v
		}
	}
	cl.t.Fatalf("no vnode %s", name)
	return nil
}
