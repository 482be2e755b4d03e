//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// partitioner runs each server of a local cluster in its own network
// namespace, joined to the others (and to the agents and commands in the
// root namespace) by a veth pair on a bridge, so that a server can be cut
// off by a real network partition: its link goes down, its packets go
// nowhere, while its process keeps running (unlike SIGSTOP). Commands keep
// reaching every server's Unix socket (paths are not namespaced), so a
// command tried on the isolated server learns it has no leader and moves on.
type partitioner struct {
	t      *testing.T
	c      *cluster
	prefix string
	subnet string            // "10.213.K"
	ns     map[string]string // server name -> namespace
	veth   map[string]string // server name -> root side of its veth
	n      int
}

// newPartitioner moves the servers of the fresh cluster c (nothing
// submitted yet) into network namespaces; nil, with the reason logged, when
// this is not the long form or `ip netns` does not work here.
func newPartitioner(t *testing.T, c *cluster, long bool) *partitioner {
	t.Helper()
	if !long {
		t.Log("partitions: network-namespace partitions run in the long form (STRATA_HA_CHAOS_LONG=1)")
		return nil
	}
	if os.Geteuid() != 0 {
		t.Log("partitions skipped: network namespaces need root")
		return nil
	}
	p := &partitioner{t: t, c: c, prefix: fmt.Sprintf("s%04x", rand.IntN(0xffff)),
		subnet: fmt.Sprintf("10.213.%d", 1+rand.IntN(250)), ns: map[string]string{}, veth: map[string]string{}}
	br := p.prefix + "br"
	if err := p.ip("link", "add", br, "type", "bridge"); err != nil {
		t.Logf("partitions skipped: cannot create a bridge (ip link add type bridge): %v", err)
		return nil
	}
	t.Cleanup(p.teardown)
	if err := p.ip("netns", "add", p.prefix+"probe"); err != nil {
		t.Logf("partitions skipped: ip netns unavailable: %v", err)
		return nil
	}
	p.ip("netns", "del", p.prefix+"probe")
	p.must("addr", "add", p.subnet+".254/24", "dev", br)
	p.must("link", "set", br, "up")

	// Stop the fresh cluster, give each server an address of its own in
	// its namespace, and start the servers there on empty data: they
	// bootstrap from the rewritten [[peer]] tables.
	if out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "stop", "--dir", c.dir).CombinedOutput(); err != nil {
		t.Fatalf("cluster stop: %v\n%s", err, out)
	}
	var layout struct {
		Procs []struct{ Name, Role, Config string } `json:"processes"`
	}
	lb, err := os.ReadFile(filepath.Join(c.dir, "cluster.json"))
	if err != nil || json.Unmarshal(lb, &layout) != nil {
		t.Fatalf("read cluster.json: %v", err)
	}
	var repl []string
	var configs []string
	i := 0
	for _, pr := range layout.Procs {
		configs = append(configs, pr.Config)
		if pr.Role != "server" {
			continue
		}
		i++
		ns, v := fmt.Sprintf("%s%d", p.prefix, i), fmt.Sprintf("%sv%d", p.prefix, i)
		p.ns[pr.Name], p.veth[pr.Name] = ns, v
		p.must("netns", "add", ns)
		p.must("link", "add", v, "type", "veth", "peer", "name", v+"p")
		p.must("link", "set", v+"p", "netns", ns)
		p.must("link", "set", v, "master", br, "up")
		ip := fmt.Sprintf("%s.%d", p.subnet, i)
		p.must("-n", ns, "addr", "add", ip+"/24", "dev", v+"p")
		p.must("-n", ns, "link", "set", v+"p", "up")
		p.must("-n", ns, "link", "set", "lo", "up")
		b, _ := os.ReadFile(pr.Config)
		for _, key := range []string{"api_addr", "raft_addr"} {
			// The server's own key comes first; the [[peer]] tables
			// after it list every server.
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, key+" = "); ok {
					old := strings.Trim(v, `"`)
					_, port, _ := strings.Cut(old, ":")
					repl = append(repl, old, ip+":"+port)
					break
				}
			}
		}
		os.RemoveAll(filepath.Join(c.dir, pr.Name, "data"))
	}
	r := strings.NewReplacer(repl...)
	for _, f := range append(configs, filepath.Join(c.dir, "cluster.json")) {
		b, _ := os.ReadFile(f)
		os.WriteFile(f, []byte(r.Replace(string(b))), 0o644)
	}
	for name := range p.ns {
		p.start(name)
	}
	c.restart() // the agents
	c.leader(30 * time.Second)
	t.Logf("partitions: servers in network namespaces %s1..%d on %s.0/24 (bridge %s)", p.prefix, i, p.subnet, br)
	return p
}

// start starts server name in its namespace (as `cluster start` would
// in the root one) and records its pid for the cluster's tools.
func (p *partitioner) start(name string) {
	p.t.Helper()
	logf, err := os.OpenFile(filepath.Join(p.c.dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command("ip", "netns", "exec", p.ns[name], filepath.Join(binDir, "strata"), "server", "--config", filepath.Join(p.c.dir, name, "server.toml"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start %s in %s: %v", name, p.ns[name], err)
	}
	go cmd.Wait()
	os.WriteFile(filepath.Join(p.c.dir, name+".pid"), []byte(fmt.Sprint(cmd.Process.Pid)), 0o644)
	// `ip netns exec` execs the server in its turn; until it has, a look
	// at /proc can miss it (its cmdline is empty in the middle of exec),
	// and a `cluster start` then would launch a second copy in the root
	// namespace over its pid file.
	exe := filepath.Join(binDir, "strata")
	waitFor(p.t, 10*time.Second, name+" to exec in its namespace", func() bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
		argv0, _, _ := strings.Cut(string(b), "\x00")
		return argv0 == exe
	})
}

// restartDead starts every server of the namespaces that is not running.
func (p *partitioner) restartDead() {
	for _, s := range p.c.status() {
		if s.Role == "server" && s.State != "running" {
			p.start(s.Name)
		}
	}
}

// isolate cuts server h off from every other process: its link goes down.
func (p *partitioner) isolate(h haProc) {
	p.n++
	p.must("link", "set", p.veth[h.Name], "down")
}

// heal reconnects it.
func (p *partitioner) heal(h haProc) {
	p.must("link", "set", p.veth[h.Name], "up")
}

func (p *partitioner) count() int {
	if p == nil {
		return 0
	}
	return p.n
}

func (p *partitioner) ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (p *partitioner) must(args ...string) {
	p.t.Helper()
	if err := p.ip(args...); err != nil {
		p.t.Fatal(err)
	}
}

// teardown stops the cluster (its servers live in the namespaces), then
// removes the namespaces, the veths and the bridge.
func (p *partitioner) teardown() {
	exec.Command(filepath.Join(binDir, "strata"), "cluster", "stop", "--dir", p.c.dir).Run()
	for name, ns := range p.ns {
		p.ip("link", "del", p.veth[name])
		p.ip("netns", "del", ns)
	}
	p.ip("link", "del", p.prefix+"br")
}
