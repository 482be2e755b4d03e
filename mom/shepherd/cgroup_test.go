package shepherd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testLayout sets up an agent subtree in the given mode or skips the test
// where this machine cannot (not root, no such hierarchy, read-only).
func testLayout(t *testing.T, mode string, enforceMem bool) *CgroupLayout {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("cgroup tests need root")
	}
	spoolDir := t.TempDir()
	lay, err := SetupCgroups(CgroupConfig{Mode: mode, EnforceMem: enforceMem}, "unit", spoolDir, DefaultCgroupSources)
	if err != nil {
		t.Skipf("cgroup %s not usable here: %v", mode, err)
	}
	t.Cleanup(lay.RemoveAgentCgroup)
	return lay
}

// markerProcs lists the pids whose command line contains marker.
func markerProcs(marker string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), marker) {
			st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !strings.Contains(string(st), ") Z") {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// countSleeps counts the pids whose program is sleep.
func countSleeps(pids []string) int {
	n := 0
	for _, p := range pids {
		if b, err := os.ReadFile(filepath.Join("/proc", p, "comm")); err == nil && strings.TrimSpace(string(b)) == "sleep" {
			n++
		}
	}
	return n
}

// TestCgroupKillEscapedProcesses performs the escape on both layouts: the
// job starts a setsid child and a double-forked one, which the process
// group kill misses; the cgroup kill ends them all.
func TestCgroupKillEscapedProcesses(t *testing.T) {
	for _, mode := range []string{CgroupV1, CgroupV2} {
		t.Run(mode, func(t *testing.T) {
			lay := testLayout(t, mode, false)
			cg := lay.Job(fmt.Sprintf("%d.unit.0", time.Now().UnixNano()))
			if err := cg.create(); err != nil {
				t.Fatal(err)
			}
			marker := fmt.Sprintf("600.%d", time.Now().UnixNano()%1000000)
			script := fmt.Sprintf("setsid sleep %s & ( (sleep %s &) & ); exec sleep %s", marker, marker, marker)
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := startInCgroup(cg, cmd, t.Logf); err != nil {
				t.Fatal(err)
			}
			go cmd.Wait()
			// Wait until all three are sleep itself: a shell fork that has
			// not yet reached setsid or exec would die with the group.
			waitForT(t, 10*time.Second, "three marked sleeps", func() bool { return countSleeps(markerProcs(marker)) == 3 })
			if n := len(cg.pids()); n != 3 {
				t.Fatalf("cgroup holds %d processes, want 3", n)
			}
			// What the code did before cgroups: the process group only.
			// The double fork stays in the group; the setsid child does not.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			waitForT(t, 10*time.Second, "the process group to die", func() bool { return len(markerProcs(marker)) == 1 })
			if err := cg.KillAndRemove(); err != nil {
				t.Fatal(err)
			}
			if left := markerProcs(marker); len(left) != 0 {
				t.Fatalf("processes %v survived the cgroup kill", left)
			}
			for _, d := range cg.dirs {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Fatalf("cgroup %s not removed: %v", d, err)
				}
			}
		})
	}
}

// TestCgroupMemoryLimit: a process allocating past the limit is killed.
func TestCgroupMemoryLimit(t *testing.T) {
	lay := testLayout(t, CgroupV1, true)
	if !lay.CanLimitMem() {
		t.Skip("no memory controller")
	}
	cg := lay.Job(fmt.Sprintf("%d.mem.0", time.Now().UnixNano()))
	if err := cg.create(); err != nil {
		t.Fatal(err)
	}
	defer cg.KillAndRemove()
	if err := cg.setMemLimit(32 << 20); err != nil {
		t.Fatal(err)
	}
	// tail keeps the whole "line" of /dev/zero in memory.
	cmd := exec.Command("tail", "/dev/zero")
	if err := startInCgroup(cg, cmd, t.Logf); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("tail /dev/zero was not killed by the 32mb limit")
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("tail ended with %v, want SIGKILL by the OOM killer", cmd.ProcessState)
	}
	if cg.OOMKills() == 0 {
		t.Errorf("oom_kill counter is 0")
	}
	if peak, ok := cg.MemPeak(); !ok || peak < 16<<20 {
		t.Errorf("memory peak %d (%v), want about 32mb", peak, ok)
	}
}

func TestParseCgroupMountinfo(t *testing.T) {
	dir := t.TempDir()
	mi := filepath.Join(dir, "mountinfo")
	os.WriteFile(mi, []byte(`31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 /sub /sys/fs/cgroup/my\040unified rw,relatime - cgroup2 cgroup2 rw
`), 0o644)
	ms, err := readCgroupMounts(mi)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || strings.Join(ms[0].controllers, ",") != "cpu,cpuacct" || len(ms[1].controllers) != 0 ||
		!ms[2].v2 || ms[2].point != "/sys/fs/cgroup/my unified" || ms[2].root != "/sub" {
		t.Fatalf("mounts: %+v", ms)
	}
	if got := hierarchyDir(ms[2], "", "/sub/a/b"); got != "/sys/fs/cgroup/my unified/a/b" {
		t.Errorf("hierarchyDir = %q", got)
	}
	pc := filepath.Join(dir, "cgroup")
	os.WriteFile(pc, []byte("2:cpu,cpuacct:/x\n0::/y\n"), 0o644)
	own, _ := readProcCgroups(pc)
	if own["cpuacct"] != "/x" || own[""] != "/y" {
		t.Errorf("own cgroups: %v", own)
	}
	if cpus, _ := parseCPUList("0-2,5"); fmt.Sprint(cpus) != "[0 1 2 5]" {
		t.Errorf("parseCPUList = %v", cpus)
	}
	if got := pickCPUs([]int{0, 1, 2, 3}, map[int]bool{0: true, 2: true}, 2); fmt.Sprint(got) != "[1 3]" {
		t.Errorf("pickCPUs = %v", got)
	}
}

func waitForT(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCgroupCpusetAndUsage: enforce_cpus confines a job to its ncpus, and
// the cgroup counts the cpu time of its processes.
func TestCgroupCpusetAndUsage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("cgroup tests need root")
	}
	lay, err := SetupCgroups(CgroupConfig{Mode: CgroupV1, EnforceCpus: true}, "unit", t.TempDir(), DefaultCgroupSources)
	if err != nil || !lay.CanConfineCPUs() {
		t.Skipf("no v1 cpuset here: %v", err)
	}
	t.Cleanup(lay.RemoveAgentCgroup)
	cg := lay.Job(fmt.Sprintf("%d.cpu.0", time.Now().UnixNano()))
	if err := cg.create(); err != nil {
		t.Fatal(err)
	}
	defer cg.KillAndRemove()
	if err := cg.confineCPUs(1); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; grep Cpus_allowed_list /proc/self/status")
	var out strings.Builder
	cmd.Stdout = &out
	if err := startInCgroup(cg, cmd, t.Logf); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	_, list, _ := strings.Cut(out.String(), ":")
	if cpus, err := parseCPUList(strings.TrimSpace(list)); err != nil || len(cpus) != 1 {
		t.Errorf("job may run on %q, want one cpu", list)
	}
	if ns, ok := cg.CPUNanos(); !ok || ns == 0 {
		t.Errorf("cgroup cpu time %d (%v), want > 0", ns, ok)
	}
}

// TestCgroupsUnavailable: without a usable hierarchy the agent falls back
// and says why.
func TestCgroupsUnavailable(t *testing.T) {
	dir := t.TempDir()
	mi := filepath.Join(dir, "mountinfo")
	pc := filepath.Join(dir, "cgroup")
	os.WriteFile(pc, []byte("0::/\n"), 0o644)
	os.WriteFile(mi, []byte("22 1 0:21 / /proc rw - proc proc rw\n"), 0o644)
	src := CgroupSources{mountinfo: mi, procCgroup: pc}
	if _, err := SetupCgroups(CgroupConfig{Mode: CgroupAuto}, "h", dir, src); err == nil || !strings.Contains(err.Error(), "no cgroup2 file system") {
		t.Errorf("no cgroup mounts: %v", err)
	}
	// A cgroup2 "mount" that is a plain directory: not a cgroup.
	fake := filepath.Join(dir, "fake")
	os.Mkdir(fake, 0o755)
	os.WriteFile(mi, []byte("41 31 0:38 / "+fake+" rw - cgroup2 cgroup2 rw\n"), 0o644)
	if _, err := SetupCgroups(CgroupConfig{Mode: CgroupV2}, "h", dir, src); err == nil || !strings.Contains(err.Error(), "is not a cgroup") {
		t.Errorf("plain directory: %v", err)
	}
	if _, err := SetupCgroups(CgroupConfig{Mode: CgroupOff}, "h", dir, src); err == nil {
		t.Errorf("mode off gave a layout")
	}
}
