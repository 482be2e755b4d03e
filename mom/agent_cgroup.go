package mom

import (
	"errors"
	"path/filepath"

	"github.com/strata-hpc/strata/mom/shepherd"
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
	a.logger.Printf("jobs are contained by %s", lay.Describe())
	if lay.EnforceMem && !lay.CanLimitMem() {
		a.logger.Printf("enforce_mem: the %s layout has no memory controller; memory is not limited", lay.Mode)
	}
	if lay.EnforceCpus && !lay.CanConfineCPUs() {
		a.logger.Printf("enforce_cpus: the %s layout has no cpuset controller; cpus are not confined", lay.Mode)
	}
}

// killLeftoverCgroup kills and removes the cgroup of a run whose shepherd
// is gone: whatever the job left running must not outlive it.
func (a *Agent) killLeftoverCgroup(dir string) {
	_, lp, err := shepherd.ReadRecord(dir)
	if err != nil || lp == nil {
		return
	}
	cg := lp.Cgroup.Job(filepath.Base(dir))
	if cg == nil {
		return
	}
	if err := cg.KillAndRemove(); err != nil {
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
		_, lp, err := shepherd.ReadRecord(dir)
		if err != nil || lp == nil {
			continue
		}
		if cg := lp.Cgroup.Job(filepath.Base(dir)); cg != nil {
			n++
			if err := cg.KillAndRemove(); err != nil {
				errs = append(errs, err)
			}
			lp.Cgroup.RemoveAgentCgroup()
		}
	}
	return n, errors.Join(errs...)
}
