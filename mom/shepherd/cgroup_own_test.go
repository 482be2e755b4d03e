package shepherd

import (
	"maps"
	"testing"
)

// TestOwnCgroupFromRecordedMounts: the shepherd's way back out of its
// job's v1 cgroup, found from /proc/self/cgroup and the mounts the agent
// recorded in the layout, is the one the mount table gives.
func TestOwnCgroupFromRecordedMounts(t *testing.T) {
	lay := testLayout(t, CgroupV1, false)
	if len(lay.Mounts) != len(lay.Dirs) {
		t.Fatalf("layout records mounts %v for hierarchies %v", lay.Mounts, lay.Dirs)
	}
	cg := lay.Job("own.1")
	fast, err := cg.ownCgroupDirs(DefaultCgroupSources)
	if err != nil {
		t.Fatal(err)
	}
	cg.mounts = nil // a record of an earlier release: the mount table is read
	slow, err := cg.ownCgroupDirs(DefaultCgroupSources)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(fast, slow) || len(fast) != len(lay.Dirs) {
		t.Errorf("from the layout %v, from the mount table %v", fast, slow)
	}
}
