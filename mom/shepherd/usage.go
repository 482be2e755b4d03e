package shepherd

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
)

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat; it is
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// DefaultUsageInterval is how often a running job's usage is sampled and
// reported when the configuration does not say.
const DefaultUsageInterval = 10 * time.Second

// sessionSample is the summed usage of the live processes of one session.
type sessionSample struct {
	procs    int
	cpuTicks uint64 // utime+stime, plus cutime+cstime of reaped children
	rssKB    uint64
	vmemKB   uint64
}

// sampleSession sums /proc/<pid>/stat over the processes whose session id
// is sid (the job's session: the job pid, since it ran setsid).
func sampleSession(sid int) sessionSample {
	return sampleProcs(sid, nil)
}

// sampleProcs sums /proc/<pid>/stat over the processes of session sid, or,
// when pids is not nil, over those processes (the job's cgroup, which
// also holds what left the session).
func sampleProcs(sid int, pids map[string]bool) sessionSample {
	var s sessionSample
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return s
	}
	page := uint64(os.Getpagesize())
	want := strconv.Itoa(sid)
	for _, e := range ents {
		name := e.Name()
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		f := statFields(string(b))
		// f[0] is field 3 (state); session is field 6, utime..cstime 14-17,
		// vsize 23 (bytes), rss 24 (pages).
		if len(f) < 22 || (pids == nil && f[3] != want) || (pids != nil && !pids[name]) {
			continue
		}
		s.procs++
		for _, i := range []int{11, 12, 13, 14} {
			v, _ := strconv.ParseUint(f[i], 10, 64)
			s.cpuTicks += v
		}
		vsize, _ := strconv.ParseUint(f[20], 10, 64)
		rss, _ := strconv.ParseUint(f[21], 10, 64)
		s.vmemKB += vsize / 1024
		s.rssKB += rss * page / 1024
	}
	return s
}

// statFields splits /proc/<pid>/stat after the command name, which is in
// parentheses and may contain spaces.
func statFields(s string) []string {
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return nil
	}
	return strings.Fields(s[end+1:])
}

// procState is field 3 of /proc/<pid>/stat ("R", "S", "T"...), "" when the
// process is gone.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	if f := statFields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// usageMeter keeps the peaks of a job's sampled usage: processes that exit
// without being reaped inside the session take their cpu time with them,
// so the largest sum seen is the best estimate.
type usageMeter struct {
	sid       int
	ncpus     string
	cpuTicks  uint64
	maxRSSKB  uint64
	maxVmemKB uint64
	// cg, when set, is the job's cgroup: its processes are sampled instead
	// of the session's, and its counters win where the kernel keeps them.
	cg *JobCgroup
}

// sample reads /proc once and updates the peaks.
func (m *usageMeter) sample() {
	var s sessionSample
	if m.cg != nil {
		pids := map[string]bool{}
		for _, p := range m.cg.pids() {
			pids[strconv.Itoa(p)] = true
		}
		s = sampleProcs(m.sid, pids)
	} else {
		s = sampleSession(m.sid)
	}
	m.cgroupCounters()
	if s.cpuTicks > m.cpuTicks {
		m.cpuTicks = s.cpuTicks
	}
	if s.rssKB > m.maxRSSKB {
		m.maxRSSKB = s.rssKB
	}
	if s.vmemKB > m.maxVmemKB {
		m.maxVmemKB = s.vmemKB
	}
}

// cgroupCounters raises the peaks to the cgroup's cpu time (which counts
// exited processes too) and memory high-water mark.
func (m *usageMeter) cgroupCounters() {
	if m.cg == nil {
		return
	}
	if ns, ok := m.cg.CPUNanos(); ok && ns/1e7 > m.cpuTicks {
		m.cpuTicks = ns / 1e7 // ticks are 10 ms
	}
	if b, ok := m.cg.MemPeak(); ok && b/1024 > m.maxRSSKB {
		m.maxRSSKB = b / 1024
	}
}

// used formats resources_used for the given walltime.
func (m *usageMeter) used(wall time.Duration) map[string]string {
	cput := int64(m.cpuTicks / clockTicks)
	wallSecs := int64(wall.Round(time.Second) / time.Second)
	used := map[string]string{
		"walltime": model.FormatDuration(wallSecs),
		"cput":     model.FormatDuration(cput),
		"mem":      strconv.FormatUint(m.maxRSSKB, 10) + "kb",
		"vmem":     strconv.FormatUint(m.maxVmemKB, 10) + "kb",
		"ncpus":    m.ncpus,
	}
	if ms := wall.Milliseconds(); ms > 0 {
		used["cpupercent"] = strconv.FormatUint(m.cpuTicks*1000/uint64(ms), 10) // ticks are 10 ms
	}
	return used
}
