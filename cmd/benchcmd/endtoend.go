package benchcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// The end-to-end figures match the Slurm peer's (../shared/peers/slurm,
// RESULTS.md) one for one, on the same shape of cluster: 8 agents x 2
// cpus on loopback, real agents, real shepherds, real /bin/true jobs.
//
//	a1, a8: held submissions through qsub processes from 1 and 8 loops
//	b:      N held /bin/true jobs released at once (one qrls process with
//	        every id, as Slurm's one scontrol release), timed until no job
//	        is left
//	c:      submit-to-start on an idle cluster, from just before the exec
//	        of qsub to a `date` run inside the job

// cluster is one local cluster started for a measurement.
type cluster struct {
	exe, dir string
	env      []string
	client   *api.Client
}

// startCluster starts a fresh local cluster of moms agents with ncpus each.
func startCluster(exe string, moms, ncpus int) (*cluster, error) {
	dir, err := os.MkdirTemp("", "strata-bench-")
	if err != nil {
		return nil, err
	}
	start := exec.Command(exe, "cluster", "start", "--dir", dir, "--moms", strconv.Itoa(moms), "--ncpus", strconv.Itoa(ncpus), "--name", "bench")
	if out, err := start.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start cluster: %v: %s", err, out)
	}
	socket := filepath.Join(dir, "server1", "strata.sock")
	return &cluster{
		exe:    exe,
		dir:    dir,
		env:    append(os.Environ(), "STRATA_SOCKET="+socket, "PBS_SERVER=bench"),
		client: api.NewUnixClient(socket, "bench"),
	}, nil
}

func (c *cluster) stop() {
	_ = exec.Command(c.exe, "cluster", "stop", "--dir", c.dir).Run()
	os.RemoveAll(c.dir)
}

// command runs one of the PBS commands (a link next to the strata binary).
func (c *cluster) command(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(filepath.Dir(c.exe), name), args...)
	cmd.Env, cmd.Dir = c.env, c.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return out, nil
}

// pids are the server's and the agents' process ids.
func (c *cluster) pids() (server string, agents []string) {
	files, _ := filepath.Glob(filepath.Join(c.dir, "*.pid"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pid := strings.TrimSpace(string(b))
		if strings.HasPrefix(filepath.Base(f), "server") {
			server = pid
		} else {
			agents = append(agents, pid)
		}
	}
	return server, agents
}

// throughputRun is one run of figure b.
type throughputRun struct {
	Rate                 float64 // jobs/s
	ServerMs, AgentMs    float64 // CPU per job of the server and of all agents
	ShepherdMs           float64 // CPU per job of the shepherds and the jobs they ran
	MachineMs            float64 // CPU per job of the whole machine (shepherds and jobs included, and anything else running)
	Secs                 float64
	Jobs, Agents, Ncpus  int
	ReleaseSecs, StartMs float64
}

// endToEnd runs figure b once on a fresh cluster: jobs held /bin/true jobs
// submitted through the API (not timed), released by one qrls process,
// done when the server lists no job (polled every 50 ms).
func endToEnd(ctx context.Context, exe string, moms, ncpus, jobs int) (*throughputRun, error) {
	c, err := startCluster(exe, moms, ncpus)
	if err != nil {
		return nil, err
	}
	defer c.stop()
	ids := make([]string, jobs)
	if _, err := parallel(jobs, 16, func(i int) error {
		req := heldJob(c.dir)
		req.Output, req.Error = "/dev/null", "/dev/null"
		id, err := c.client.Submit(ctx, req, 0)
		ids[i] = id
		return err
	}); err != nil {
		return nil, err
	}
	server, agents := c.pids()
	s0, a0, h0, m0 := cpuMs(server), sumCPU(agents), sumChildCPU(agents), machineCPUMs()
	t0 := time.Now()
	if _, err := c.command("qrls", ids...); err != nil {
		return nil, err
	}
	released := time.Since(t0)
	for {
		resp, err := c.client.Jobs(ctx, nil, false)
		if err != nil {
			return nil, err
		}
		if len(resp.Jobs) == 0 {
			break
		}
		if time.Since(t0) > 15*time.Minute {
			return nil, fmt.Errorf("%d jobs still listed after 15 minutes", len(resp.Jobs))
		}
		time.Sleep(50 * time.Millisecond)
	}
	secs := time.Since(t0).Seconds()
	n := float64(jobs)
	return &throughputRun{
		Rate: n / secs, Secs: secs, Jobs: jobs, Agents: moms, Ncpus: ncpus,
		ServerMs:    (cpuMs(server) - s0) / n,
		AgentMs:     (sumCPU(agents) - a0) / n,
		ShepherdMs:  (sumChildCPU(agents) - h0) / n,
		MachineMs:   (machineCPUMs() - m0) / n,
		ReleaseSecs: released.Seconds(),
	}, nil
}

// submitToStart is figure c: n samples on an idle cluster, each from just
// before qsub's exec to the time a `date` inside the job wrote; it also
// returns the median duration of the qsub process alone.
func submitToStart(exe string, moms, ncpus, n int) (lat, qsub []float64, err error) {
	c, err := startCluster(exe, moms, ncpus)
	if err != nil {
		return nil, nil, err
	}
	defer c.stop()
	for i := 0; i < n; i++ {
		mark := filepath.Join(c.dir, fmt.Sprintf("start.%d", i))
		t0 := time.Now()
		if _, err := c.command("qsub", "-o", "/dev/null", "-e", "/dev/null", "--", "/bin/sh", "-c", "date +%s.%N > "+mark); err != nil {
			return nil, nil, err
		}
		qsub = append(qsub, ms(time.Since(t0)))
		deadline := time.Now().Add(time.Minute)
		var ts float64
		for {
			if b, err := os.ReadFile(mark); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
				if ts, err = strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil {
					break
				}
			}
			if time.Now().After(deadline) {
				return nil, nil, fmt.Errorf("job %d did not start within a minute", i)
			}
			time.Sleep(2 * time.Millisecond)
		}
		lat = append(lat, (ts-float64(t0.UnixNano())/1e9)*1000)
		if err := c.waitEmpty(time.Minute); err != nil {
			return nil, nil, err
		}
	}
	return lat, qsub, nil
}

func (c *cluster) waitEmpty(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := c.client.Jobs(context.Background(), nil, false)
		if err != nil {
			return err
		}
		if len(resp.Jobs) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d jobs still listed", len(resp.Jobs))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// qsubRuns is figures a1/a8: runs of n held submissions through qsub
// processes from conc loops, each run on a fresh cluster as Slurm's.
func qsubRuns(exe string, moms, ncpus, n, conc, runs int) ([]float64, error) {
	var rates []float64
	for r := 0; r < runs; r++ {
		c, err := startCluster(exe, moms, ncpus)
		if err != nil {
			return nil, err
		}
		rate, err := qsubRate(filepath.Join(filepath.Dir(exe), "qsub"), c.env, c.dir, n, conc)
		c.stop()
		if err != nil {
			return nil, err
		}
		rates = append(rates, rate)
	}
	return rates, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cpuMs is a process's user+system CPU time in milliseconds (0 when gone).
func cpuMs(pid string) float64 { return procCPU(pid, 11) }

// childCPUMs is the CPU time of a process's reaped children: for an agent,
// its shepherds, which reaped the jobs.
func childCPUMs(pid string) float64 { return procCPU(pid, 13) }

func sumChildCPU(pids []string) float64 {
	var t float64
	for _, p := range pids {
		t += childCPUMs(p)
	}
	return t
}

// procCPU adds two consecutive fields of /proc/pid/stat (index counted
// from the field after the command name: 11 is utime, 13 cutime).
func procCPU(pid string, idx int) float64 {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < idx+2 {
		return 0
	}
	u, _ := strconv.ParseFloat(f[idx], 64)
	k, _ := strconv.ParseFloat(f[idx+1], 64)
	return (u + k) * 1000 / clockTicks
}

func sumCPU(pids []string) float64 {
	var t float64
	for _, p := range pids {
		t += cpuMs(p)
	}
	return t
}

// machineCPUMs is the CPU time all cores spent outside idle and iowait.
func machineCPUMs() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	var busy float64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is already in user
			continue
		}
		x, _ := strconv.ParseFloat(v, 64)
		busy += x
	}
	return busy * 1000 / clockTicks
}

// clockTicks is USER_HZ, 100 on every Linux architecture Strata runs on.
const clockTicks = 100
