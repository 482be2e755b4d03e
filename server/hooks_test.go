package server

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// applyHookChanges is the server's own check of a queuejob hook's answer:
// the pbs module validates too, but the server does not trust it.
func TestApplyHookChanges(t *testing.T) {
	defs := model.BuiltinResources()
	newJob := func() *model.Job {
		return &model.Job{Name: "a", Hold: "n", Mail: "a", Rerun: true, ResourceList: map[string]string{"ncpus": "1"},
			Env: []model.EnvVar{{Name: "HOME", Value: "/home/a"}}}
	}
	j := newJob()
	err := applyHookChanges(j, map[string]string{
		"Resource_List.walltime": "3600", "Variable_List.HOME": "/scratch", "Variable_List.NEW": `a,"b"`,
		"Hold_Types": "u", "Mail_Points": "abe", "Mail_Users": "ops@site", "Rerunable": "False", "Priority": "-5",
	}, defs)
	if err != nil {
		t.Fatal(err)
	}
	if j.ResourceList["walltime"] != "01:00:00" || j.EnvValue("HOME") != "/scratch" || j.EnvValue("NEW") != `a,"b"` || len(j.Env) != 2 ||
		j.Hold != "u" || j.Mail != "abe" || j.MailTo != "ops@site" || j.Rerun || j.Priority != -5 {
		t.Errorf("changes not applied: %+v", j)
	}
	for change, want := range map[string]string{
		"job_state=R":            "job_state (not settable by a hook)",
		"queue=other":            "queue (not settable by a hook)",
		"Resource_List.host=n1":  "Resource_List.host (hook may set job-wide resources only)",
		"Resource_List.select=2": "Resource_List.select (hook may set job-wide resources only)",
		"Variable_List.=1":       "Variable_List",
		"Hold_Types=x":           "Hold_Types",
		"Hold_Types=un":          "Hold_Types",
		"Mail_Points=z":          "Mail_Points",
		"Rerunable=maybe":        "Rerunable",
		"Priority=5000":          "Priority",
	} {
		k, v, _ := strings.Cut(change, "=")
		err := applyHookChanges(newJob(), map[string]string{k: v}, defs)
		if pbsErr, ok := err.(*model.PBSError); !ok || pbsErr.Code != model.PBSEBadAttrVal || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", change, err, want)
		}
	}
}
