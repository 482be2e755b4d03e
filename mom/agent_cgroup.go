package mom

import (
	"path/filepath"
)

// setupCgroups detects the host's cgroup layout and creates the agent's
// subtree, saying in the log which containment jobs get.
func (a *Agent) setupCgroups() {
	lay, err := setupCgroups(a.cfg.Cgroups, a.cfg.Host, a.cfg.Spool, defaultCgroupSources)
	if err != nil {
		a.logger.Printf("cgroups unavailable: %v; jobs are contained by process group only", err)
		return
	}
	a.cgroups = lay
	a.logger.Printf("jobs are contained by %s", lay.describe())
	if lay.EnforceMem && !lay.canLimitMem() {
		a.logger.Printf("enforce_mem: the %s layout has no memory controller; memory is not limited", lay.Mode)
	}
	if lay.EnforceCpus && !lay.canConfineCPUs() {
		a.logger.Printf("enforce_cpus: the %s layout has no cpuset controller; cpus are not confined", lay.Mode)
	}
}

// canLimitMem tells whether job cgroups get a memory controller.
func (l *cgroupLayout) canLimitMem() bool {
	if l.Mode == cgroupV2 {
		return fileHasWord(filepath.Join(l.Dirs[""], "cgroup.subtree_control"), "memory")
	}
	return l.Dirs["memory"] != ""
}

// canConfineCPUs tells whether job cgroups get a cpuset controller.
func (l *cgroupLayout) canConfineCPUs() bool {
	if l.Mode == cgroupV2 {
		return fileHasWord(filepath.Join(l.Dirs[""], "cgroup.subtree_control"), "cpuset")
	}
	return l.Dirs["cpuset"] != ""
}

// killLeftoverCgroup kills and removes the cgroup of a run whose shepherd
// is gone: whatever the job left running must not outlive it.
func (a *Agent) killLeftoverCgroup(dir string) {
	var lp launchParams
	if err := readJSON(filepath.Join(dir, fileLaunch), &lp); err != nil {
		return
	}
	cg := lp.Cgroup.job(filepath.Base(dir))
	if cg == nil {
		return
	}
	if err := cg.killAndRemove(); err != nil {
		a.logger.Printf("leftover cgroup of %s: %v", filepath.Base(dir), err)
	}
}
