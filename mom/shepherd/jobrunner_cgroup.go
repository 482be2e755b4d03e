package shepherd

import (
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
)

// setupCgroup creates the run's cgroup and applies the limits the site
// enforces. A cgroup that cannot be made leaves the job contained by its
// process group only, as without cgroups, and says so in the log.
func (r *jobRunner) setupCgroup() {
	cg := r.params.Cgroup.Job(filepath.Base(r.dir))
	if cg == nil {
		return
	}
	if err := cg.create(); err != nil {
		r.logger.Printf("job %s: %v; the job is contained by process group only", r.job.ID, err)
		_ = cg.remove(0)
		return
	}
	r.cg = cg
	lay := r.params.Cgroup
	if lay.EnforceMem {
		if mem := r.hostAmount("mem"); mem > 0 {
			if err := cg.setMemLimit(uint64(mem)); err != nil {
				r.logger.Printf("job %s: enforce_mem: %v", r.job.ID, err)
			}
		}
	}
	if lay.EnforceCpus {
		if n := int(math.Ceil(r.hostAmount("ncpus"))); n > 0 {
			if err := cg.confineCPUs(n); err != nil {
				r.logger.Printf("job %s: enforce_cpus: %v", r.job.ID, err)
			}
		}
	}
}

// hostAmount sums a consumable over the job's vnodes on this host.
func (r *jobRunner) hostAmount(name string) float64 {
	var total float64
	for _, ec := range r.job.Exec {
		for _, s := range ec.Shares {
			if s.Host == r.params.Host {
				total += s.Amounts[name]
			}
		}
	}
	return total
}

// start starts the job inside its cgroup, so that not even the first
// instruction of the script runs outside it. On v2 the kernel places the
// child at clone (CLONE_INTO_CGROUP); v1 has no such call, so the shepherd
// joins the cgroup, forks the job, and leaves again (nothing else forks
// meanwhile).
func (r *jobRunner) start(cmd *exec.Cmd) error {
	return startInCgroup(r.cg, cmd, r.logger.Printf)
}

// startInCgroup starts cmd in cg (nil: as it is).
func startInCgroup(cg *JobCgroup, cmd *exec.Cmd, logf func(string, ...any)) error {
	if cg == nil {
		return cmd.Start()
	}
	if cg.mode == CgroupV2 {
		fd, err := os.Open(cg.dirs[""])
		if err != nil {
			return fmt.Errorf("open cgroup: %w", err)
		}
		defer fd.Close()
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = int(fd.Fd())
		return cmd.Start()
	}
	own, err := cg.ownCgroupDirs(DefaultCgroupSources)
	if err != nil {
		return fmt.Errorf("find the shepherd's cgroup: %w", err)
	}
	self := os.Getpid()
	leave := func() {
		for _, ctrl := range slices.Sorted(maps.Keys(own)) {
			if err := writeCgroupProcs(own[ctrl], self); err != nil {
				logf("leave the job's cgroup: %v", err)
			}
		}
	}
	if err := cg.enter(self); err != nil {
		leave()
		return err
	}
	err = cmd.Start()
	leave()
	return err
}

// signalCgroup sends sig to the processes of the job's cgroup that left
// its process group pgid (the caller signalled the group itself).
func (r *jobRunner) signalCgroup(pgid int, sig syscall.Signal) {
	if r.cg != nil {
		r.cg.signalOutside(pgid, sig)
	}
}

// killCgroup kills every process left in the job's cgroup.
func (r *jobRunner) killCgroup() {
	if r.cg == nil {
		return
	}
	if err := r.cg.kill(killBound); err != nil {
		r.logger.Printf("job %s: %v", r.job.ID, err)
	}
}

// removeCgroup kills what is left and removes the cgroup.
func (r *jobRunner) removeCgroup() {
	if r.cg == nil {
		return
	}
	if err := r.cg.KillAndRemove(); err != nil {
		r.logger.Printf("job %s: %v", r.job.ID, err)
	}
	r.cg = nil
}
