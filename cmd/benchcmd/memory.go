package benchcmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The memory figure alone (`strata bench --figures mem`): the server's RSS
// growth per queued job as make bench measures it (memoryPerJob: held jobs
// through the API, 64 in flight), on a fresh cluster with one agent, and
// where that RSS is: anonymous memory (the Go heap, stacks, runtime) against
// file pages (the binary and the bbolt Raft log mapped in), and what the
// server's Go runtime says of its heap (its metrics endpoint).

// memSample is what the server process holds at one moment.
type memSample struct {
	rss, anon, file int64 // VmRSS, RssAnon, RssFile (bytes)
	raftDB          int64 // resident pages of the mapped Raft log (bytes)
	heapAlloc       int64 // go_memstats_heap_alloc_bytes: live and not yet collected
	heapInuse       int64 // go_memstats_heap_inuse_bytes: spans in use
	nextGC          int64 // go_memstats_next_gc_bytes: the heap goal after the last GC
	sys             int64 // go_memstats_sys_bytes: everything the runtime obtained
}

func (s memSample) String() string {
	kib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
	return fmt.Sprintf("RSS %s (anon %s, file %s, raft.db %s); Go heap alloc %s, in use %s, goal %s, sys %s",
		kib(s.rss), kib(s.anon), kib(s.file), kib(s.raftDB), kib(s.heapAlloc), kib(s.heapInuse), kib(s.nextGC), kib(s.sys))
}

// memFigure runs the memory figure once and prints the breakdown.
func memFigure(ctx context.Context, exe string, n int) (float64, error) {
	c, err := startCluster(exe, 1, 2)
	if err != nil {
		return 0, err
	}
	defer c.stop()
	pid, _ := c.pids()
	metrics := metricsURL(c.dir)
	before := sampleMemory(pid, metrics)
	cpu0 := cpuMs(pid)
	t0 := time.Now()
	per, err := memoryPerJob(ctx, c.client, c.dir, n)
	if err != nil {
		return 0, err
	}
	secs := time.Since(t0).Seconds()
	cpu := (cpuMs(pid) - cpu0) / float64(n)
	after := sampleMemory(pid, metrics)
	if dir := os.Getenv("STRATA_PROFILE_DIR"); dir != "" {
		heapProfile(pid, dir)
	}
	// And once the burst is over: the server returns its free heap when
	// idle (server/memtrim.go checks every 5 s).
	time.Sleep(memSettle)
	settled := sampleMemory(pid, metrics)
	fmt.Fprintf(os.Stderr, "mem before: %v\nmem after %d held jobs (%.1f s, %.0f jobs/s, server CPU %.3f ms/job): %v\n", before, n, secs, float64(n)/secs, cpu, after)
	d := func(get func(memSample) int64) float64 { return float64(get(after)-get(before)) / float64(n) }
	fmt.Fprintf(os.Stderr, "mem per job: RSS %.0f B (anon %.0f, file %.0f, raft.db %.0f); heap alloc %.0f, goal %.0f\n",
		per, d(func(s memSample) int64 { return s.anon }), d(func(s memSample) int64 { return s.file }),
		d(func(s memSample) int64 { return s.raftDB }), d(func(s memSample) int64 { return s.heapAlloc }),
		d(func(s memSample) int64 { return s.nextGC }))
	fmt.Fprintf(os.Stderr, "mem per job %s later, idle: RSS %.0f B (anon %.0f, file %.0f); heap alloc %.0f, in use %.0f, sys %.0f\n", memSettle,
		float64(settled.rss-before.rss)/float64(n), float64(settled.anon-before.anon)/float64(n),
		float64(settled.file-before.file)/float64(n), float64(settled.heapAlloc-before.heapAlloc)/float64(n),
		float64(settled.heapInuse-before.heapInuse)/float64(n), float64(settled.sys-before.sys)/float64(n))
	return per, nil
}

// memSettle is how long the memory figure waits for the idle sample.
const memSettle = 15 * time.Second

// metricsURL is the first server's metrics address from the cluster's env
// file ("" when it has none).
func metricsURL(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "env"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "export STRATA_METRICS="); ok {
			v = strings.Trim(v, `"`)
			first, _, _ := strings.Cut(v, ",")
			return first
		}
	}
	return ""
}

func sampleMemory(pid, metrics string) memSample {
	var s memSample
	if b, err := os.ReadFile("/proc/" + pid + "/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				s.rss = kb * 1024
			case "RssAnon:":
				s.anon = kb * 1024
			case "RssFile:":
				s.file = kb * 1024
			}
		}
	}
	s.raftDB = mappedRSS(pid, "raft")
	if metrics != "" {
		if resp, err := http.Get(metrics); err == nil {
			readGoMemstats(resp.Body, &s)
			resp.Body.Close()
		}
	}
	return s
}

// mappedRSS sums the Rss of the process's mappings of files whose path
// contains name (bbolt maps the Raft log read-only).
func mappedRSS(pid, name string) int64 {
	f, err := os.Open("/proc/" + pid + "/smaps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") {
			// A mapping's header line: address range, perms, offset, dev, inode[, path].
			in = len(fields) >= 6 && strings.Contains(filepath.Base(fields[5]), name)
			continue
		}
		if in && fields[0] == "Rss:" && len(fields) >= 2 {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			total += kb * 1024
		}
	}
	return total
}

func readGoMemstats(r io.Reader, s *memSample) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_memstats_heap_alloc_bytes":
			s.heapAlloc = int64(v)
		case "go_memstats_heap_inuse_bytes":
			s.heapInuse = int64(v)
		case "go_memstats_next_gc_bytes":
			s.nextGC = int64(v)
		case "go_memstats_sys_bytes":
			s.sys = int64(v)
		}
	}
}

// heapProfile asks the server for a heap profile (SIGUSR1 with
// STRATA_PROFILE_DIR set, cmd/strata/profile.go) and waits for it.
func heapProfile(pid, dir string) {
	p, err := strconv.Atoi(pid)
	if err != nil || syscall.Kill(p, syscall.SIGUSR1) != nil {
		return
	}
	pattern := filepath.Join(dir, "server-"+pid+".heap.*.pprof")
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			fmt.Fprintf(os.Stderr, "mem heap profile: %s\n", m[0])
			return
		}
	}
}
