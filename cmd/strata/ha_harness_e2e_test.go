//go:build e2e

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newHACluster starts a local cluster of `servers` Raft servers and moms
// agents through `strata cluster start --servers N`, and points the
// commands at every server's socket, as DIR/env does.
func newHACluster(t *testing.T, servers, moms, ncpus int) *cluster {
	t.Helper()
	var logs []string
	for i := 1; i <= servers; i++ {
		logs = append(logs, fmt.Sprintf("server%d.log", i))
	}
	c, _ := prepareCluster(t, "strata-e2e-ha-", logs, 2000)
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "start", "--dir", c.dir,
		"--servers", fmt.Sprint(servers), "--moms", fmt.Sprint(moms), "--ncpus", fmt.Sprint(ncpus),
		"--mem", "4gb", "--name", "e2e").CombinedOutput()
	if err != nil {
		t.Fatalf("cluster start: %v\n%s", err, out)
	}
	env, err := os.ReadFile(filepath.Join(c.dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	sockets := ""
	for _, line := range strings.Split(string(env), "\n") {
		if v, ok := strings.CutPrefix(line, "export STRATA_SOCKET="); ok {
			sockets = strings.Trim(v, `"`)
		}
	}
	if strings.Count(sockets, ",") != servers-1 {
		t.Fatalf("DIR/env STRATA_SOCKET=%q does not list %d servers", sockets, servers)
	}
	c.env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "STRATA_SOCKET="+sockets, "PBS_SERVER=e2e")
	return c
}

// haProc is one row of `strata cluster status -F json`.
type haProc struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	Pid   int    `json:"pid"`
	Addr  string `json:"address"`
	State string `json:"state"`
	Raft  string `json:"raft"`
}

func (c *cluster) status() []haProc {
	c.t.Helper()
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "status", "--dir", c.dir, "-F", "json").Output()
	if err != nil {
		c.t.Fatalf("cluster status: %v", err)
	}
	var doc struct {
		Processes []haProc `json:"processes"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		c.t.Fatalf("cluster status -F json: %v\n%s", err, out)
	}
	return doc.Processes
}

// leader waits until exactly one server reports "leader" and returns it.
func (c *cluster) leader(timeout time.Duration) haProc {
	c.t.Helper()
	var lead haProc
	waitFor(c.t, timeout, "one leader", func() bool {
		n := 0
		for _, p := range c.status() {
			if p.Role == "server" && p.Raft == "leader" {
				lead = p
				n++
			}
		}
		return n == 1
	})
	return lead
}

// sockOf returns a server's socket from its status address ("api sock").
func sockOf(p haProc) string {
	f := strings.Fields(p.Addr)
	return f[len(f)-1]
}

// apiOf returns a server's TCP API address.
func apiOf(p haProc) string { return strings.Fields(p.Addr)[0] }

// editServerConfigs stops the cluster, rewrites every server's
// server.toml with edit, and starts it again on its existing data (e.g.
// Strata's default Raft timers instead of the local cluster's fast ones).
func (c *cluster) editServerConfigs(edit func(string) string) {
	c.t.Helper()
	if out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "stop", "--dir", c.dir).CombinedOutput(); err != nil {
		c.t.Fatalf("cluster stop: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(c.dir, "server*", "server.toml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			c.t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(edit(string(b))), 0o644); err != nil {
			c.t.Fatal(err)
		}
	}
	c.restart()
}

// defaultTimers drops the local cluster's fast_raft line: the servers
// then run Strata's default Raft timers (raftstore.DefaultTimeout).
func defaultTimers(conf string) string {
	return strings.Replace(conf, "fast_raft = true\n", "", 1)
}
