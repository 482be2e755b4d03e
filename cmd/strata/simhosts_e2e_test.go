//go:build e2e

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startSimCluster starts a cluster of one server and n simulated hosts
// (strata cluster start --sim-hosts) with 2 cpus each.
func startSimCluster(t *testing.T, n int, speed string) *cluster {
	t.Helper()
	c, _ := prepareCluster(t, "strata-e2e-sim-", []string{"server1.log", "sim.log"}, 3000)
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "start", "--dir", c.dir, "--moms", "0",
		"--sim-hosts", fmt.Sprint(n), "--sim-speed", speed, "--ncpus", "2", "--mem", "4gb", "--name", "e2e").CombinedOutput()
	if err != nil {
		t.Fatalf("cluster start --sim-hosts %d: %v\n%s", n, err, out)
	}
	c.env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "STRATA_SOCKET="+filepath.Join(c.dir, "server1", "strata.sock"), "PBS_SERVER=e2e")
	return c
}

// TestSimHostsRunJobs: 200 simulated hosts from one process register,
// heartbeat and run an array of 400 subjobs and single jobs end to end,
// through the same server and scheduler as real agents: pbsnodes lists
// them, qstat -t shows every subjob finished with its exit status and
// resources_used, accounting has an E record per subjob, and provisioning
// a simulated host with an AOE completes.
func TestSimHostsRunJobs(t *testing.T) {
	c := startSimCluster(t, 200, "20")
	nodes := c.must("pbsnodes", "-a")
	if n := strings.Count(nodes, "state = free"); n != 200 || !strings.Contains(nodes, "sim-00200\n") {
		t.Fatalf("pbsnodes -a: %d free vnodes, want 200 named sim-00001..sim-00200", n)
	}
	c.must("qmgr", "-c", "set server max_array_size = 100000")
	arr := c.submit("true\n", "-J", "1-400", "-v", "STRATA_SIM_RUNTIME=2", "-l", "select=1:ncpus=1")
	failing := c.submit("true\n", "-v", "STRATA_SIM_RUNTIME=1,STRATA_SIM_EXIT=5")
	walltime := c.submit("true\n", "-l", "walltime=00:00:20")
	c.waitState(arr, 90*time.Second, "F")
	if j := c.waitState(failing, 30*time.Second, "F"); fmt.Sprint(j["Exit_status"]) != "5" {
		t.Errorf("job with STRATA_SIM_EXIT=5: Exit_status %v", j["Exit_status"])
	}
	// 20 s of walltime at speed 20: one second of real time, 20 s used.
	j := c.waitState(walltime, 30*time.Second, "F")
	used, _ := j["resources_used"].(map[string]any)
	if w := fmt.Sprint(used["walltime"]); w < "00:00:15" || w > "00:00:30" {
		t.Errorf("walltime job: resources_used.walltime %s, want about 00:00:20 (virtual time)", w)
	}
	sub := c.job(strings.Replace(arr, "[]", "[17]", 1))
	if fmt.Sprint(sub["Exit_status"]) != "0" || !strings.HasPrefix(fmt.Sprint(sub["exec_host"]), "sim-") {
		t.Errorf("subjob 17: Exit_status %v exec_host %v", sub["Exit_status"], sub["exec_host"])
	}
	rows := 0
	for _, l := range strings.Split(c.must("qstat", "-t", "-x", arr), "\n") {
		if f := strings.Fields(l); len(f) >= 5 && strings.Contains(f[0], "[") && f[0] != arr {
			rows++
			if f[4] != "X" { // a finished subjob
				t.Errorf("qstat -t -x: %s", l)
			}
		}
	}
	if rows != 400 {
		t.Errorf("qstat -t -x lists %d subjobs, want 400", rows)
	}
	waitFor(t, 10*time.Second, "an E record for every subjob", func() bool {
		return strings.Count(c.acctLog(), ";E;"+arr[:strings.Index(arr, "[")+1]) >= 400
	})
	if n := strings.Count(c.must("pbsnodes", "-a"), "state = free"); n != 200 {
		t.Errorf("after the run %d of 200 vnodes free", n)
	}

	// Provisioning: the simulator answers the provision hook for its hosts
	// (30 s virtual at speed 20) and the job runs once the AOE is on.
	c.provHook("exit 1", "alarm = 60")
	c.provNode("sim-00001", "app1")
	prov := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app1", "-v", "STRATA_SIM_RUNTIME=1")
	if j := c.waitState(prov, 60*time.Second, "F"); fmt.Sprint(j["Exit_status"]) != "0" {
		t.Errorf("provisioned job: Exit_status %v comment %v", j["Exit_status"], j["comment"])
	}
	if aoe := c.nodeAttr("sim-00001", "current_aoe"); aoe != "app1" {
		t.Errorf("sim-00001 current_aoe %q after simulated provisioning, want app1", aoe)
	}
}
