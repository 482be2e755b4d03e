package shepherd

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killBound is how long a kill waits for the cgroup to empty.
const killBound = 10 * time.Second

// JobCgroup is one run's cgroup: a directory per hierarchy.
type JobCgroup struct {
	mode   string
	dirs   map[string]string      // controller ("" on v2) -> job directory
	mounts map[string]CgroupMount // the layout's (v1; nil: unknown)
}

// jobCgroupName is the directory name of a run's cgroup.
func jobCgroupName(key string) string { return "job-" + key }

// Job returns the cgroup of the run key (nil without a layout).
func (l *CgroupLayout) Job(key string) *JobCgroup {
	if l == nil || len(l.Dirs) == 0 {
		return nil
	}
	cg := &JobCgroup{mode: l.Mode, dirs: map[string]string{}, mounts: l.Mounts}
	for c, d := range l.Dirs {
		cg.dirs[c] = filepath.Join(d, jobCgroupName(key))
	}
	return cg
}

// create makes the job's directories. A leftover of an earlier attempt of
// the same run is emptied first: nothing of it may survive into this one.
func (c *JobCgroup) create() error {
	for _, ctrl := range slices.Sorted(maps.Keys(c.dirs)) {
		d := c.dirs[ctrl]
		err := os.Mkdir(d, 0o755)
		if errors.Is(err, os.ErrExist) {
			if kerr := c.kill(5 * time.Second); kerr != nil {
				return kerr
			}
			err = nil
		}
		if err != nil {
			return fmt.Errorf("create cgroup %s: %w", d, err)
		}
		if ctrl == "cpuset" {
			if err := inheritCpuset(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// pids lists the processes in the job's cgroup (every hierarchy: a process
// is in all of them, but reading each costs little and misses nothing).
func (c *JobCgroup) pids() []int {
	seen := map[int]bool{}
	var out []int
	for _, d := range c.dirs {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 && !seen[pid] {
				seen[pid] = true
				out = append(out, pid)
			}
		}
	}
	return out
}

// signalOutside sends sig to the cgroup's processes that are not in
// process group pgid: the caller signalled that group already, and a
// second copy of a signal would run a job's trap twice.
func (c *JobCgroup) signalOutside(pgid int, sig syscall.Signal) {
	for _, pid := range c.pids() {
		if pgid > 0 {
			if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
				continue
			}
		}
		_ = syscall.Kill(pid, sig)
	}
}

// kill ends every process in the cgroup and waits, at most bound, until
// it is empty. v2 writes cgroup.kill where the kernel has it; otherwise
// the cgroup is frozen (v2 cgroup.freeze, v1 freezer), every member gets
// SIGKILL and it is thawed, in a loop, so a process forking as fast as it
// can is caught all the same.
func (c *JobCgroup) kill(bound time.Duration) error {
	deadline := time.Now().Add(bound)
	if len(c.pids()) == 0 {
		// Nothing to kill, and nothing can join an empty cgroup on its
		// own: the freeze, kill and thaw below cost a job that left no
		// process behind (most of them) several cgroup writes and waits.
		return nil
	}
	if d, ok := c.dirs[""]; ok && c.mode == CgroupV2 {
		if err := os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0o644); err == nil {
			if c.waitEmpty(deadline) {
				return nil
			}
		}
	}
	for {
		c.freeze(true, deadline)
		for _, pid := range c.pids() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		c.freeze(false, deadline)
		if c.waitEmpty(minTime(deadline, time.Now().Add(200*time.Millisecond))) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup still holds processes %v after %s", c.pids(), bound)
		}
	}
}

// freeze freezes or thaws the cgroup where a freezer exists; freezing
// waits (bounded) until every member is frozen.
func (c *JobCgroup) freeze(on bool, deadline time.Time) {
	var file, val, done string
	switch {
	case c.mode == CgroupV2:
		file, val, done = filepath.Join(c.dirs[""], "cgroup.freeze"), "0", ""
		if on {
			val = "1"
		}
	case c.dirs["freezer"] != "":
		file, val, done = filepath.Join(c.dirs["freezer"], "freezer.state"), "THAWED", ""
		if on {
			val, done = "FROZEN", "FROZEN"
		}
	default:
		return
	}
	if err := os.WriteFile(file, []byte(val), 0o644); err != nil || done == "" {
		return
	}
	limit := minTime(deadline, time.Now().Add(time.Second))
	for time.Now().Before(limit) {
		if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) == done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitEmpty polls until no process is left or the deadline passes.
func (c *JobCgroup) waitEmpty(deadline time.Time) bool {
	for {
		if len(c.pids()) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// remove deletes the job's directories (after kill); the kernel may need a
// moment after the last process left.
func (c *JobCgroup) remove(bound time.Duration) error {
	deadline := time.Now().Add(bound)
	var errs []string
	for _, d := range c.dirs {
		for {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			if time.Now().After(deadline) {
				errs = append(errs, err.Error())
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("remove cgroup: %s", strings.Join(errs, "; "))
	}
	return nil
}

// KillAndRemove is what ends a run's cgroup: kill everything, then remove.
func (c *JobCgroup) KillAndRemove() error {
	if err := c.kill(killBound); err != nil {
		return err
	}
	return c.remove(5 * time.Second)
}

// enter moves process pid into the cgroup in every hierarchy.
func (c *JobCgroup) enter(pid int) error {
	for _, ctrl := range slices.Sorted(maps.Keys(c.dirs)) {
		if err := writeCgroupProcs(c.dirs[ctrl], pid); err != nil {
			return err
		}
	}
	return nil
}

func writeCgroupProcs(dir string, pid int) error {
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return fmt.Errorf("move pid %d into %s: %w", pid, dir, err)
	}
	return nil
}

// ownCgroupDirs returns, for each hierarchy of c, the directory of the
// cgroup the calling process is in now (to move back to).
func (c *JobCgroup) ownCgroupDirs(src CgroupSources) (map[string]string, error) {
	own, err := readProcCgroups(src.procCgroup)
	if err != nil {
		return nil, err
	}
	if out, ok := c.ownFromLayout(own); ok {
		return out, nil
	}
	mounts, err := readCgroupMounts(src.mountinfo)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for ctrl := range c.dirs {
		for _, m := range mounts {
			if (ctrl == "" && m.v2) || (ctrl != "" && containsStr(m.controllers, ctrl)) {
				out[ctrl] = hierarchyDir(m, "", own[ctrl])
				break
			}
		}
		if out[ctrl] == "" {
			return nil, fmt.Errorf("no mount for cgroup controller %q", ctrl)
		}
	}
	return out, nil
}

// ownFromLayout maps own (from /proc/self/cgroup) to directories with the
// mounts the agent recorded in the layout; false when they do not cover
// every hierarchy of c.
func (c *JobCgroup) ownFromLayout(own map[string]string) (map[string]string, bool) {
	out := make(map[string]string, len(c.dirs))
	for ctrl := range c.dirs {
		m, ok := c.mounts[ctrl]
		if !ok || ctrl == "" {
			return nil, false
		}
		out[ctrl] = hierarchyDir(cgMount{root: m.Root, point: m.Point}, "", own[ctrl])
	}
	return out, true
}

// ReadUint reads a file holding one number.
func ReadUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

// keyedValue reads "key value" lines (cpu.stat, memory.events).
func keyedValue(path, key string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// CPUNanos is the cpu time used by the cgroup's processes, living and
// exited.
func (c *JobCgroup) CPUNanos() (uint64, bool) {
	if c.mode == CgroupV2 {
		us, ok := keyedValue(filepath.Join(c.dirs[""], "cpu.stat"), "usage_usec")
		return us * 1000, ok
	}
	if d := c.dirs["cpuacct"]; d != "" {
		return ReadUint(filepath.Join(d, "cpuacct.usage"))
	}
	return 0, false
}

// MemPeak is the highest memory use of the cgroup in bytes (the current
// use where the kernel keeps no peak).
func (c *JobCgroup) MemPeak() (uint64, bool) {
	if c.mode == CgroupV2 {
		if v, ok := ReadUint(filepath.Join(c.dirs[""], "memory.peak")); ok {
			return v, true
		}
		return ReadUint(filepath.Join(c.dirs[""], "memory.current"))
	}
	if d := c.dirs["memory"]; d != "" {
		return ReadUint(filepath.Join(d, "memory.max_usage_in_bytes"))
	}
	return 0, false
}

// OOMKills is how many processes the kernel killed for exceeding the
// cgroup's memory limit.
func (c *JobCgroup) OOMKills() uint64 {
	if c.mode == CgroupV2 {
		n, _ := keyedValue(filepath.Join(c.dirs[""], "memory.events"), "oom_kill")
		return n
	}
	if d := c.dirs["memory"]; d != "" {
		n, _ := keyedValue(filepath.Join(d, "memory.oom_control"), "oom_kill")
		return n
	}
	return 0
}

// setMemLimit limits the cgroup's memory (and memory plus swap, so the
// job cannot swap its way past the limit) to bytes.
func (c *JobCgroup) setMemLimit(bytes uint64) error {
	v := []byte(strconv.FormatUint(bytes, 10))
	if c.mode == CgroupV2 {
		d := c.dirs[""]
		if err := os.WriteFile(filepath.Join(d, "memory.max"), v, 0o644); err != nil {
			return fmt.Errorf("set memory.max (is the memory controller enabled for %s?): %w", filepath.Dir(d), err)
		}
		_ = os.WriteFile(filepath.Join(d, "memory.swap.max"), []byte("0"), 0o644)
		return nil
	}
	d := c.dirs["memory"]
	if d == "" {
		return fmt.Errorf("no cgroup v1 memory controller")
	}
	if err := os.WriteFile(filepath.Join(d, "memory.limit_in_bytes"), v, 0o644); err != nil {
		return fmt.Errorf("set memory.limit_in_bytes: %w", err)
	}
	// Absent when swap accounting is off: then swap is not limited.
	_ = os.WriteFile(filepath.Join(d, "memory.memsw.limit_in_bytes"), v, 0o644)
	return nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// MemCurrent is the cgroup's memory use now, in bytes.
func (c *JobCgroup) MemCurrent() (uint64, bool) {
	if c.mode == CgroupV2 {
		return ReadUint(filepath.Join(c.dirs[""], "memory.current"))
	}
	if d := c.dirs["memory"]; d != "" {
		return ReadUint(filepath.Join(d, "memory.usage_in_bytes"))
	}
	return 0, false
}
