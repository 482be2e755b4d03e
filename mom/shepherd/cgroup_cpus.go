package shepherd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Cpuset confinement (enforce_cpus): a job gets ncpus cpus of the agent's
// cpuset, preferring cpus no other job cgroup of this agent holds, as the
// PBS cgroups hook assigns distinct cpus to jobs.

// parseCPUList parses the kernel's list format ("0-3,6").
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// formatCPUList writes cpus as a comma list (the kernel accepts it).
func formatCPUList(cpus []int) string {
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = strconv.Itoa(c)
	}
	return strings.Join(parts, ",")
}

// pickCPUs chooses n of avail, free ones (not in used) first, lowest
// numbers first; it returns all of avail when n is not smaller.
func pickCPUs(avail []int, used map[int]bool, n int) []int {
	if n <= 0 || n >= len(avail) {
		return avail
	}
	var free, busy []int
	for _, c := range avail {
		if used[c] {
			busy = append(busy, c)
		} else {
			free = append(free, c)
		}
	}
	out := append(free, busy...)[:n]
	sort.Ints(out)
	return out
}

// cpusetDir is the job directory whose cpuset files confine it, "" when
// the hierarchy has no cpuset controller.
func (c *JobCgroup) cpusetDir() string {
	if c.mode == CgroupV2 {
		d := c.dirs[""]
		if _, err := os.Stat(filepath.Join(d, "cpuset.cpus")); err == nil {
			return d
		}
		return ""
	}
	return c.dirs["cpuset"]
}

// confineCPUs gives the job n cpus of its parent's set.
func (c *JobCgroup) confineCPUs(n int) error {
	d := c.cpusetDir()
	if d == "" {
		return fmt.Errorf("no cpuset controller for %s", c.dirs[""])
	}
	parent := filepath.Dir(d)
	availFile := "cpuset.cpus"
	if c.mode == CgroupV2 {
		availFile = "cpuset.cpus.effective"
	}
	b, err := os.ReadFile(filepath.Join(parent, availFile))
	if err != nil {
		return fmt.Errorf("read %s: %w", availFile, err)
	}
	avail, err := parseCPUList(string(b))
	if err != nil {
		return err
	}
	used := map[int]bool{}
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "job-") || filepath.Join(parent, e.Name()) == d {
			continue
		}
		sb, err := os.ReadFile(filepath.Join(parent, e.Name(), "cpuset.cpus"))
		if err != nil {
			continue
		}
		cpus, _ := parseCPUList(string(sb))
		for _, x := range cpus {
			used[x] = true
		}
	}
	pick := pickCPUs(avail, used, n)
	if err := os.WriteFile(filepath.Join(d, "cpuset.cpus"), []byte(formatCPUList(pick)), 0o644); err != nil {
		return fmt.Errorf("set cpuset.cpus: %w", err)
	}
	return nil
}
