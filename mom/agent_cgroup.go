package mom

import (
	"errors"
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

// KillSpoolJobCgroups kills every process in the cgroups of the runs
// recorded in spoolDir and removes those cgroups; a stopped local cluster
// uses it so that no job process (not even one that left its session)
// outlives the cluster. It returns how many runs had a cgroup.
func KillSpoolJobCgroups(spoolDir string) (int, error) {
	dirs, err := spool{root: spoolDir}.records()
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, dir := range dirs {
		var lp launchParams
		if err := readJSON(filepath.Join(dir, fileLaunch), &lp); err != nil {
			continue
		}
		if cg := lp.Cgroup.job(filepath.Base(dir)); cg != nil {
			n++
			if err := cg.killAndRemove(); err != nil {
				errs = append(errs, err)
			}
			lp.Cgroup.removeAgentCgroup()
		}
	}
	return n, errors.Join(errs...)
}
