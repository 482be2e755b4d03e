package api

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// fullJob has every field that matters to the views set, the script and
// token included.
func fullJob() *model.Job {
	exit := 0
	rank := int64(3)
	return &model.Job{
		ID: "3.svr", Seq: 3, Name: "job", Owner: "alice@h", User: "alice", Group: "users", UID: 1000, GID: 100,
		State: model.StateRunning, Substate: model.SubRunning, Queue: "workq", Server: "svr", Hold: "n",
		ResourceList: map[string]string{"ncpus": "1", "walltime": "00:10:00"},
		Env:          []model.EnvVar{{Name: "PBS_O_HOME", Value: "/home/alice"}},
		Script:       "#!/bin/sh\necho secret\n", Token: "tok-123", SubmitHost: "h",
		Exec: []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 1}}}}},
		Exit: &exit, Used: map[string]string{"cput": "00:00:01"}, Comment: "Job run", RunCount: 1,
		History: []model.Event{{Time: 1, Text: "queued"}}, Rank: &rank,
		JobExt: &model.JobExt{MSHost: "n1"},
	}
}

// TestJobStatusIsTheRedactedJob: a user's view is byte for byte the
// stored job's JSON without the script and the token (what the server
// sent when it blanked them in a copy), and decodes back to the job
// without them.
func TestJobStatusIsTheRedactedJob(t *testing.T) {
	j := fullJob()
	got, err := json.Marshal(NewJobStatus(j))
	if err != nil {
		t.Fatal(err)
	}
	blanked := *j
	blanked.Script, blanked.Token = "", ""
	want, _ := json.Marshal(&blanked)
	if !bytes.Equal(got, want) {
		t.Fatalf("view\n%s\nredacted copy\n%s", got, want)
	}
	if bytes.Contains(got, []byte("secret")) || bytes.Contains(got, []byte("tok-123")) {
		t.Fatalf("the view carries the script or the token: %s", got)
	}
	if j.Script == "" || j.Token == "" {
		t.Fatal("making the view changed the stored job")
	}
	var back JobStatus
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if back.Job == nil || back.ID != j.ID || back.Job.Script != "" || back.ExecVnode(model.BuiltinResources()) != "(n1:ncpus=1)" {
		t.Fatalf("decoded %+v", back.Job)
	}
	// A reply from a server that still sent them: the shadow fields take
	// them, the job the command formats does not.
	var old JobStatus
	if err := json.Unmarshal([]byte(`{"id":"1.svr","script":"x","token":"t"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Job.Script != "" || old.Job.Token != "" {
		t.Fatalf("script or token reached the job: %+v", old.Job)
	}
}

// TestWorkItemIsTheStoredJobWithoutToken: the agent is given the whole
// job (its hooks have always seen every attribute), the script included,
// but not the submission token, which would let a hook replay the
// submission.
func TestWorkItemIsTheStoredJobWithoutToken(t *testing.T) {
	j := fullJob()
	got, _ := json.Marshal(NewWorkItem(j))
	c := j.Copy()
	c.Token = ""
	want, _ := json.Marshal(c)
	if !bytes.Equal(got, want) {
		t.Fatalf("work item\n%s\njob without token\n%s", got, want)
	}
	if bytes.Contains(got, []byte(j.Token)) {
		t.Fatalf("work item carries the token: %s", got)
	}
	var back WorkItem
	if err := json.Unmarshal(got, &back); err != nil || back.Job.Script != j.Script || back.Job.Token != "" {
		t.Fatalf("decoded %+v: %v", back.Job, err)
	}
}
