package shepherd

import (
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestRecordCarriesLaunchParameters: the launch parameters travel in
// job.json (one file less per job); a record of an earlier release, with
// launch.json beside it, still reads.
func TestRecordCarriesLaunchParameters(t *testing.T) {
	j := &model.Job{ID: "8.srv", RunCount: 1}
	id := Identity{UID: 1000, GID: 1000, Groups: []uint32{1000, 27}, Name: "alice", Home: "/home/alice", Shell: "/bin/bash"}
	lp := &LaunchParams{Host: "n1", TmpDir: "/var/tmp", KillDelayMs: 2000, Identity: &id}
	dir := t.TempDir()
	if err := WriteSpoolRecord(dir, j, lp); err != nil {
		t.Fatal(err)
	}
	gj, glp, err := ReadRecord(dir)
	if err != nil || gj.ID != j.ID || glp == nil || glp.Host != "n1" || glp.KillDelayMs != 2000 ||
		glp.Identity == nil || glp.Identity.Home != "/home/alice" || len(glp.Identity.Groups) != 2 {
		t.Fatalf("read back %+v %+v %v", gj, glp, err)
	}

	old := t.TempDir()
	if err := WriteSpoolRecord(old, j, nil); err != nil {
		t.Fatal(err)
	}
	if _, glp, err := ReadRecord(old); err != nil || glp != nil {
		t.Fatalf("record without launch parameters: %+v %v", glp, err)
	}
	if err := WriteJSONAtomic(filepath.Join(old, FileLaunch), lp, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, glp, err := ReadRecord(old); err != nil || glp == nil || glp.Host != "n1" {
		t.Fatalf("earlier release's launch.json: %+v %v", glp, err)
	}
}
