package raftstore

import (
	"encoding/json"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// Two identical submissions share their Variable_List, select and
// Resource_List in the store; changing one job (qalter of resources and
// name, a new comment) leaves the other exactly as it was.
func TestCompactJobsShareAndStayApart(t *testing.T) {
	h := newHarness(t)
	a := h.apply(&SubmitJob{Job: qsubJob(1), Now: 100}).(string)
	b := h.apply(&SubmitJob{Job: qsubJob(2), Now: 100}).(string)
	ja, jb := h.snap().Job(a), h.snap().Job(b)
	if &ja.Env[0] != &jb.Env[0] || &ja.Select[0] != &jb.Select[0] {
		t.Error("identical jobs do not share Variable_List and select")
	}
	ja.ResourceList["probe"] = "x" // the maps are one when shared
	if jb.ResourceList["probe"] != "x" {
		t.Error("identical jobs do not share Resource_List")
	}
	delete(ja.ResourceList, "probe")
	if cap(ja.Env) != len(ja.Env) {
		t.Errorf("shared Variable_List has spare capacity (%d of %d): an append on a copy would write into it", len(ja.Env), cap(ja.Env))
	}
	before, _ := json.Marshal(jb)

	sel, _ := model.ParseSelect("2:ncpus=4", model.BuiltinResources())
	name := "renamed"
	h.apply(&AlterJob{JobID: a, Requestor: "alice@login1", Now: 200, Name: &name, Resources: &AlteredRes{
		List: map[string]string{"ncpus": "8", "nodect": "2", "select": "2:ncpus=4", "place": "free"}, Select: sel,
		Place: model.Place{Arrangement: model.PlaceFree}}})
	h.apply(&ApplyPlan{Now: 300, Comments: []model.JobComment{{JobID: a, Comment: "Not Running: x"}}})
	c := h.snap().Job(a).Copy()
	c.ResourceList["walltime"] = "01:00:00" // a writer's copy changes its own map
	c.Env = append(c.Env, model.EnvVar{Name: "X", Value: "y"})

	after, _ := json.Marshal(h.snap().Job(b))
	if string(after) != string(before) {
		t.Errorf("changing %s changed %s:\nbefore %s\nafter  %s", a, b, before, after)
	}
	if got := h.snap().Job(a); got.Name != "renamed" || got.ResourceList["ncpus"] != "8" || got.Select.String() != "2:ncpus=4" {
		t.Errorf("altered job: %s %v %s", got.Name, got.ResourceList, got.Select)
	}
}
