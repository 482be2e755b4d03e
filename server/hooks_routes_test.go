package server_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// TestModifyjobHookEditsRequest: as in PBS, a modifyjob hook sees the
// qalter request as its job and the job as job_o, and its changes join the
// request, which is then validated as the requestor's.
func TestModifyjobHookEditsRequest(t *testing.T) {
	cl := newCluster(t, "")
	in := filepath.Join(t.TempDir(), "event.json")
	cl.mustQmgr("create", "hook", "mj", "event=modifyjob")
	script := "#!/bin/sh\ncat > " + in + "\necho '{\"job\": {\"Resource_List.walltime\": \"120\", \"Job_Name\": \"renamed\"}}'\n"
	if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "mj", ContentType: model.HookContentExecutable, Content: script}); err != nil {
		t.Fatal(err)
	}
	id := cl.mustSubmit(func(r *api.SubmitRequest) { r.Hold = "u" })
	prio := 5
	if err := cl.c.Alter(cl.ctx, id, &api.AlterRequest{Priority: &prio}); err != nil {
		t.Fatal(err)
	}
	j := cl.job(id)
	if j.Name != "renamed" || j.ResourceList["walltime"] != "00:02:00" || j.Priority != 5 {
		t.Errorf("alter with the hook's changes: name %q walltime %q priority %d", j.Name, j.ResourceList["walltime"], j.Priority)
	}
	var ev struct {
		Job  map[string]any `json:"job"`
		JobO map[string]any `json:"job_o"`
	}
	b, _ := os.ReadFile(in)
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("event: %v %s", err, b)
	}
	if len(ev.Job) != 2 || ev.Job["id"] != id || ev.Job["Priority"] != float64(5) || ev.JobO["Job_Name"] == nil || ev.JobO["id"] != id {
		t.Errorf("modifyjob event: job %v job_o %v", ev.Job, ev.JobO)
	}
	// A change qalter cannot make is refused, and nothing changes.
	script = "#!/bin/sh\necho '{\"job\": {\"comment\": \"x\"}}'\n"
	if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "mj", ContentType: model.HookContentExecutable, Content: script}); err != nil {
		t.Fatal(err)
	}
	prio = 6
	if err := cl.c.Alter(cl.ctx, id, &api.AlterRequest{Priority: &prio}); pbsCode(err) != model.PBSEBadAttrVal {
		t.Errorf("modifyjob setting comment: %v", err)
	}
	if j := cl.job(id); j.Priority != 5 {
		t.Errorf("refused alter changed the job: priority %d", j.Priority)
	}
}

// TestHookServerJobLookup: a Python hook reads another job and a vnode
// through pbs.server(), answered from the server's state.
func TestHookServerJobLookup(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	cl := newCluster(t, "4")
	first := cl.mustSubmit(func(r *api.SubmitRequest) { r.Name = "first"; r.Hold = "u" })
	cl.mustQmgr("create", "hook", "look", "event=queuejob")
	script := "import pbs\nj = pbs.event().job\no = pbs.server().job('" + first + "')\nv = pbs.server().vnode('n1')\n" +
		"j.comment = 'after %s, n1 has %s cpus' % (o.Job_Name if o else None, v.resources_available['ncpus'])\n"
	if err := cl.c.Manage(cl.ctx, &model.ManagerRequest{Verb: "import", Object: "hook", Name: "look", ContentType: model.HookContentPython, Content: script}); err != nil {
		t.Fatal(err)
	}
	id := cl.mustSubmit(func(r *api.SubmitRequest) { r.Hold = "u" })
	if j := cl.job(id); j.Comment != "after first, n1 has 4 cpus" {
		t.Errorf("comment %q", j.Comment)
	}
}
