package clustercmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/mom"
	"github.com/strata-hpc/strata/server/api"
)

// Command returns `strata cluster`.
func Command() *cli.Command {
	dirFlag := &cli.StringFlag{Name: "dir", Usage: "cluster directory (configs, data, logs, env)", Required: true, EnvVars: []string{"STRATA_CLUSTER_DIR"}}
	return &cli.Command{
		Name:  "cluster",
		Usage: "run a local cluster of real server and agent processes",
		Subcommands: []*cli.Command{
			{
				Name:  "start",
				Usage: "create (or restart) a local cluster and wait until every agent is free",
				Flags: []cli.Flag{
					dirFlag,
					&cli.IntFlag{Name: "servers", Value: 1, Usage: "number of servers"},
					&cli.IntFlag{Name: "moms", Value: 2, Usage: "number of agents (node1..nodeM)"},
					&cli.IntFlag{Name: "ncpus", Value: 4, Usage: "ncpus per agent"},
					&cli.StringFlag{Name: "mem", Value: "8gb", Usage: "mem per agent"},
					&cli.StringFlag{Name: "name", Usage: "server name (default: the short host name)"},
					&cli.StringFlag{Name: "server-config", Usage: "TOML file appended to the generated server.toml (queues, server attributes) when the cluster is created"},
					&cli.DurationFlag{Name: "timeout", Value: 60 * time.Second, Usage: "how long to wait for the cluster"},
					&cli.BoolFlag{Name: "remote-clients", Usage: "also serve commands over TCP with MUNGE, as for login hosts (starts a munged under DIR when none runs); writes DIR/env.remote"},
					&cli.IntFlag{Name: "sim-hosts", Usage: "also simulate `N` hosts sim-00001.. from one strata mom --simulate process (docs/simulate.md)"},
					&cli.Float64Flag{Name: "sim-speed", Value: 1, Usage: "speed factor of the simulated hosts"},
				},
				Action: start,
			},
			rebootCommand(), // provisioning (reboot.go)
			{
				Name:   "stop",
				Usage:  "stop every process of the cluster",
				Flags:  []cli.Flag{dirFlag},
				Action: stop,
			},
			{
				Name:   "status",
				Usage:  "list the cluster's processes",
				Flags:  []cli.Flag{dirFlag, &cli.StringFlag{Name: "F", Usage: "output format: json"}},
				Action: status,
			},
		},
	}
}

func start(c *cli.Context) error {
	dir, err := filepath.Abs(c.String("dir"))
	if err != nil {
		return err
	}
	layout, err := loadLayout(dir)
	if os.IsNotExist(err) {
		if n := c.Int("servers"); n != 1 && n != 3 && n != 5 {
			return cli.Exit("strata cluster: --servers must be 1, 3 or 5 (a Raft cluster needs an odd number of voters)", 2)
		}
		if (c.Int("moms") < 1 && c.Int("sim-hosts") < 1) || c.Int("moms") < 0 || c.Int("ncpus") < 1 || c.Int("sim-hosts") < 0 {
			return cli.Exit("strata cluster: --moms (or --sim-hosts) and --ncpus must be at least 1", 2)
		}
		if _, err := model.ParseSize(c.String("mem")); err != nil {
			return cli.Exit("strata cluster: illegal --mem value: "+err.Error(), 2)
		}
		var extra []byte
		if f := c.String("server-config"); f != "" {
			if extra, err = os.ReadFile(f); err != nil {
				return cli.Exit("strata cluster: --server-config: "+err.Error(), 2)
			}
		}
		var remote *Remote
		if c.Bool("remote-clients") {
			if remote, err = planRemote(dir); err != nil {
				return cli.Exit("strata cluster: "+err.Error(), 1)
			}
			extra = append(extra, remote.mungeTOML()...)
		}
		layout, err = create(dir, c.String("name"), c.Int("servers"), c.Int("moms"), c.Int("ncpus"), c.String("mem"), extra)
		if err == nil && remote != nil {
			layout.Remote = remote
			err = layout.save(dir)
		}
		if n := c.Int("sim-hosts"); err == nil && n > 0 {
			err = addSimHosts(dir, layout, n, c.Int("ncpus"), c.String("mem"), c.Float64("sim-speed")) // simhosts.go
		}
	} else if err == nil && c.Bool("remote-clients") && layout.Remote == nil {
		return cli.Exit("strata cluster: --remote-clients: the cluster in "+dir+" was created without it", 2)
	} else if err == nil {
		err = migrateSecret(dir, layout) // clusters of the shared-secret release (tls.go)
	}
	if err != nil {
		return cli.Exit("strata cluster: "+err.Error(), 1)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := startMunged(dir, layout.Remote); err != nil { // remote.go
		return cli.Exit("strata cluster: "+err.Error(), 1)
	}
	exited := map[string]<-chan struct{}{}
	for _, p := range layout.Procs {
		if pidOf(dir, p.Name) != 0 {
			continue
		}
		ch, err := launch(dir, exe, p)
		if err != nil {
			return cli.Exit(fmt.Sprintf("strata cluster: start %s: %v", p.Name, err), 1)
		}
		exited[p.Name] = ch
	}
	if err := writeEnv(dir, exe, layout); err != nil {
		return err
	}
	if err := writeEnvRemote(dir, exe, layout); err != nil {
		return err
	}
	if err := waitReady(c.Context, dir, layout, exited, c.Duration("timeout")); err != nil {
		return cli.Exit("strata cluster: "+err.Error(), 1)
	}
	fmt.Fprintf(c.App.Writer, "cluster %s is up: %d processes; run: . %s/env\n", layout.ServerName, len(layout.Procs), dir)
	if s := layout.servers(); len(s) > 0 && s[0].Metrics != "" {
		fmt.Fprintf(c.App.Writer, "web page: http://%s/ui/ (strata web login for jobs; metrics at /metrics)\n", s[0].Metrics)
	}
	if layout.Remote != nil {
		fmt.Fprintf(c.App.Writer, "remote clients (TCP and MUNGE, as a login host): . %s/env.remote\n", dir)
	}
	return nil
}

// create writes the configuration of a new cluster.
// extra is appended to the server's configuration.
func create(dir, name string, servers, moms, ncpus int, mem string, extra []byte) (*Layout, error) {
	if name == "" {
		host, _ := os.Hostname()
		name, _, _ = strings.Cut(host, ".")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var hosts []string
	for i := 1; i <= moms; i++ {
		hosts = append(hosts, fmt.Sprintf("node%d", i))
	}
	if err := createPKI(dir, hosts); err != nil {
		return nil, err
	}
	sweepReservations() // ports.go
	srvProcs, err := createServers(dir, name, servers, extra)
	if err != nil {
		return nil, err
	}
	l := &Layout{ServerName: name, APIAddr: srvProcs[0].Addr, Socket: srvProcs[0].Socket, Procs: srvProcs}
	serverKey := fmt.Sprintf("server = %q", l.APIAddr)
	if servers > 1 {
		b, _ := json.Marshal(l.apiAddrs())
		serverKey = "servers = " + string(b)
	}
	for i := 1; i <= moms; i++ {
		host := fmt.Sprintf("node%d", i)
		momDir := filepath.Join(dir, host)
		metrics, err := freePort(dir)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(momDir, "tmp"), 0o1777); err != nil {
			return nil, err
		}
		os.Chmod(filepath.Join(momDir, "tmp"), os.ModeSticky|0o777) // 0o1777 is not ModeSticky in Go
		conf := fmt.Sprintf(`# Local cluster agent (written by strata cluster start).
%s
%s
host = %q
spool = %q
tmpdir = %q
kill_delay = "2s"
heartbeat_interval = "1s"
usage_interval = "2s"
metrics_addr = %q

[resources]
ncpus = %d
mem = %q
`, serverKey, agentTLS(dir, host), host, filepath.Join(momDir, "spool"), filepath.Join(momDir, "tmp"), metrics, ncpus, mem)
		// Provisioning hook point (reboot.go): top-level keys must come
		// before the [resources] table.
		if exe, err := os.Executable(); err == nil {
			conf = strings.Replace(conf, "\n[resources]\n", agentProvisionConf(dir, exe, host)+"\n[resources]\n", 1)
		}
		if err := writeBootID(dir, host); err != nil {
			return nil, err
		}
		path := filepath.Join(momDir, "mom.toml")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			return nil, err
		}
		l.Procs = append(l.Procs, Process{Name: host, Role: "mom", Config: path, Addr: host, Metrics: metrics, Log: filepath.Join(dir, host+".log")})
	}
	return l, l.save(dir)
}

// launch starts one process in its own session so it outlives this
// command. The returned channel closes if the process exits while this
// command still runs: that, not a look at /proc (which can catch a process
// in the middle of exec), is how a failed start is detected.
func launch(dir, exe string, p Process) (<-chan struct{}, error) {
	logf, err := os.OpenFile(p.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, append([]string{p.Role, "--config", p.Config}, p.Args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if err := os.WriteFile(pidFile(dir, p.Name), []byte(fmt.Sprintf("%d\n", cmd.Process.Pid)), 0o644); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return done, nil
}

func writeEnv(dir, exe string, l *Layout) error {
	bin := filepath.Dir(exe)
	env := fmt.Sprintf(`# Source this file to use the local cluster in %s.
export PATH=%q:"$PATH"
export STRATA_SOCKET=%q
export PBS_SERVER=%q
export STRATA_CLUSTER_DIR=%q
`, dir, bin, l.sockets(), l.ServerName, dir)
	// The servers' Prometheus endpoints (docs/metrics.md), comma-separated.
	var metrics []string
	for _, p := range l.servers() {
		if p.Metrics != "" {
			metrics = append(metrics, "http://"+p.Metrics+"/metrics")
		}
	}
	if len(metrics) > 0 {
		env += fmt.Sprintf("export STRATA_METRICS=%q\n", strings.Join(metrics, ","))
		// The first server's web page (web = true; /ui/ and /metrics on
		// one address, docs/observability.md).
		env += fmt.Sprintf("export STRATA_WEB=%q\n", strings.TrimSuffix(metrics[0], "/metrics"))
	}
	return os.WriteFile(filepath.Join(dir, "env"), []byte(env), 0o644)
}

// waitReady polls until the server answers and every agent's vnode is free.
func waitReady(ctx context.Context, dir string, l *Layout, exited map[string]<-chan struct{}, timeout time.Duration) error {
	client := api.NewUnixClient(l.sockets(), l.ServerName)
	deadline := time.Now().Add(timeout)
	want := 0
	for _, p := range l.Procs {
		if p.Role == "mom" {
			want += max(1, p.Hosts)
		}
	}
	// Listing thousands of simulated vnodes costs the server: ask less often.
	pollEvery := 100 * time.Millisecond
	if want > 1000 {
		pollEvery = time.Second
	}
	var last string
	for time.Now().Before(deadline) {
		// Fail fast only for processes this start launched: one that was
		// already running may be restarting on its own (a local agent's
		// simulated reboot relaunches it), and readiness covers it.
		for _, p := range l.Procs {
			if gone(exited[p.Name]) {
				return fmt.Errorf("%s exited during start; see %s", p.Name, p.Log)
			}
		}
		resp, err := client.Nodes(ctx)
		if err == nil {
			free := 0
			for _, v := range resp.Vnodes {
				if v.State&model.Unavailable == 0 {
					free++
				}
			}
			if free >= want && len(resp.Vnodes) >= want {
				return nil
			}
			last = fmt.Sprintf("%d of %d agents free", free, want)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
	return fmt.Errorf("cluster not ready after %s (%s)", timeout, last)
}

// gone reports whether a launched process's exit channel is closed.
func gone(ch <-chan struct{}) bool {
	if ch == nil {
		return false
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func stop(c *cli.Context) error {
	dir, _ := filepath.Abs(c.String("dir"))
	l, err := loadLayout(dir)
	if err != nil {
		return cli.Exit("strata cluster: no cluster in "+dir, 1)
	}
	// Agents first, so they do not spend the shutdown retrying the server.
	order := append([]Process(nil), l.Procs...)
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	for _, p := range order {
		if pid := pidOf(dir, p.Name); pid != 0 {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range order {
		for pidOf(dir, p.Name) != 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if pid := pidOf(dir, p.Name); pid != 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		os.Remove(pidFile(dir, p.Name))
	}
	stopMunged(dir, l.Remote) // remote.go
	// A local cluster is a test and demo tool: stopping it also ends the
	// jobs its agents' shepherds still run (a production agent leaves them).
	KillSessions(sessionsUnder(dir), syscall.SIGKILL)
	// A job that left its session is found through its agent's cgroups.
	for _, p := range l.Procs {
		if p.Role == "mom" {
			mom.KillSpoolJobCgroups(filepath.Join(filepath.Dir(p.Config), "spool"))
		}
	}
	return nil
}

type procStatus struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	Pid   int    `json:"pid"`
	Addr  string `json:"address"`
	State string `json:"state"`
	// Raft is a server's role: leader, follower, candidate, or down
	// (stopped or not answering within a second).
	Raft string `json:"raft,omitempty"`
}

func status(c *cli.Context) error {
	dir, _ := filepath.Abs(c.String("dir"))
	l, err := loadLayout(dir)
	if err != nil {
		return cli.Exit("strata cluster: no cluster in "+dir, 1)
	}
	var rows []procStatus
	for _, p := range l.Procs {
		st := procStatus{Name: p.Name, Role: p.Role, Addr: p.Addr, State: "stopped"}
		if pid := pidOf(dir, p.Name); pid != 0 {
			st.Pid, st.State = pid, "running"
		}
		if p.Role == "server" {
			sock := p.Socket
			if sock == "" {
				sock = l.Socket
			}
			st.Addr = p.Addr + " " + sock
			st.Raft = raftRole(c.Context, sock, st.Pid != 0)
		}
		rows = append(rows, st)
	}
	return printStatus(c.App.Writer, rows, c.String("F"))
}

func printStatus(w io.Writer, rows []procStatus, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"processes": rows})
	case "":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tROLE\tPID\tSTATE\tRAFT\tADDRESS")
		for _, r := range rows {
			pid := "-"
			if r.Pid != 0 {
				pid = fmt.Sprint(r.Pid)
			}
			raft := r.Raft
			if raft == "" {
				raft = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Role, pid, r.State, raft, r.Addr)
		}
		return tw.Flush()
	}
	return cli.Exit("strata cluster: unknown format "+format+" (use json)", 2)
}
