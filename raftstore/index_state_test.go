package raftstore

import (
	"fmt"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestJobsInStateGroups: the jobs of a state are listed from their groups
// across group boundaries (200 jobs, groups of 64), a snapshot taken before
// a release keeps listing its own version while the store moves on, a
// deleted job leaves its state's list, and a restored store lists the same.
func TestJobsInStateGroups(t *testing.T) {
	h := newHarness(t)
	var ids []string
	for i := 0; i < 200; i++ {
		j := qsubJob(i)
		ids = append(ids, h.apply(&SubmitJob{Job: j, Now: 1_700_000_000}).(string))
	}
	ids2 := func(jobs []*model.Job) string {
		var s []string
		for _, j := range jobs {
			s = append(s, j.ID)
		}
		return fmt.Sprint(s)
	}
	if got := h.snap().JobsInState(model.StateHeld); ids2(got) != fmt.Sprint(ids) {
		t.Fatalf("held jobs %s", ids2(got))
	}
	before := h.snap()
	for _, id := range ids[60:130] {
		if r := h.apply(&ReleaseJob{JobID: id, Holds: "u", Requestor: "alice@login1", Now: 1_700_000_001}); r != nil {
			t.Fatalf("release %s: %v", id, r)
		}
	}
	if r := h.apply(&DeleteJob{JobID: ids[0], Requestor: "alice@login1", Now: 1_700_000_002}); r != nil {
		t.Fatalf("delete: %v", r)
	}
	check := func(s *StateSnapshot, what string) {
		t.Helper()
		if got := s.JobsInState(model.StateQueued); ids2(got) != fmt.Sprint(ids[60:130]) {
			t.Fatalf("%s: queued %s", what, ids2(got))
		}
		held := append(append([]string{}, ids[1:60]...), ids[130:]...)
		if got := s.JobsInState(model.StateHeld); ids2(got) != fmt.Sprint(held) {
			t.Fatalf("%s: held %s", what, ids2(got))
		}
		if got := s.JobsInStateUnordered(model.StateQueued); len(got) != 70 {
			t.Fatalf("%s: %d queued unordered", what, len(got))
		}
		var unfinished, rows int
		s.EachUnfinishedJob(func(*model.Job) { unfinished++ })
		for _, j := range s.JobRows() {
			if !j.IsFinished() {
				rows++
			}
		}
		if unfinished != rows || unfinished != 199 {
			t.Fatalf("%s: %d unfinished jobs from the groups, %d rows not finished, want 199", what, unfinished, rows)
		}
		for _, j := range s.JobsInState(model.StateQueued) {
			if s.Job(j.ID) != j {
				t.Fatalf("%s: the group's %s is not the stored row", what, j.ID)
			}
		}
	}
	check(h.snap(), "after")
	if got := before.JobsInState(model.StateHeld); ids2(got) != fmt.Sprint(ids) || len(before.JobsInState(model.StateQueued)) != 0 {
		t.Fatalf("the snapshot taken before changed: %d held", len(got))
	}
	check(h.restored(t).snap(), "restored")
}
