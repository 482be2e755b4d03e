//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/internal/munge/mungetest"
)

// startRemoteCluster starts a cluster with --remote-clients and returns it
// twice: as the server host sees it (DIR/env, the socket) and as a login
// host does (the environment of sourcing DIR/env.remote: TCP and MUNGE).
func startRemoteCluster(t *testing.T) (local, remote *cluster) {
	t.Helper()
	if err := munge.Installed(); err != nil {
		t.Skipf("skipping remote commands: %v", err)
	}
	c, _ := prepareCluster(t, "strata-e2e-remote-", []string{"server1.log", "node1.log", "munge/munged.log"}, 3000)
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "start", "--dir", c.dir, "--moms", "1",
		"--ncpus", "2", "--mem", "4gb", "--name", "e2e", "--remote-clients").CombinedOutput()
	if err != nil {
		t.Fatalf("cluster start --remote-clients: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), c.dir+"/env.remote") {
		t.Errorf("cluster start does not point at env.remote:\n%s", out)
	}
	c.env = sourced(t, filepath.Join(c.dir, "env"))
	r := *c
	r.env = sourced(t, filepath.Join(c.dir, "env.remote"))
	return c, &r
}

// sourced returns the environment after a shell sources file, as a user's
// login shell would.
func sourced(t *testing.T, file string) []string {
	t.Helper()
	out, err := exec.Command("bash", "-c", `. "$1" && env -0`, "bash", file).Output()
	if err != nil {
		t.Fatalf("source %s: %v", file, err)
	}
	return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
}

func envValue(env []string, key string) (value string, ok bool) {
	// The last entry wins, as when the environment is passed to exec.
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, key+"="); found {
			value, ok = v, true
		}
	}
	return value, ok
}

// TestRemoteCommandsThroughEnvRemote drives the PBS commands as a login
// host would: over TCP with MUNGE, as root and as a plain user, with the
// refusals a user sees.
func TestRemoteCommandsThroughEnvRemote(t *testing.T) {
	local, remote := startRemoteCluster(t)
	if v, ok := envValue(remote.env, "STRATA_SOCKET"); ok {
		t.Fatalf("env.remote leaves STRATA_SOCKET=%s", v)
	}
	if v, _ := envValue(remote.env, "PBS_SERVER"); !strings.HasPrefix(v, "127.0.0.1:") {
		t.Fatalf("env.remote PBS_SERVER=%q, want the TCP API", v)
	}

	// A plain user submits, queries and deletes its own job; the owner's
	// host is the login host its credential names.
	r := remote.runAs(nobody, "sleep 60\n", "qsub", "-h")
	userJob := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasSuffix(userJob, ".e2e") {
		t.Fatalf("remote qsub as nobody: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	j := remote.job(userJob)
	host, _ := strings.CutPrefix(str(j["Job_Owner"]), "nobody@")
	if host == "" || j["Submit_Host"] != host {
		t.Fatalf("nobody's job: owner %v Submit_Host %v", j["Job_Owner"], j["Submit_Host"])
	}
	if r := remote.runAs(nobody, "", "qstat"); r.code != 0 || !strings.Contains(r.stdout, strings.Split(userJob, ".")[0]) {
		t.Fatalf("remote qstat as nobody: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := remote.runAs(nobody, "", "qalter", "-N", "renamed", userJob); r.code != 0 || remote.job(userJob)["Job_Name"] != "renamed" {
		t.Fatalf("remote qalter as nobody: exit %d %q", r.code, r.stderr)
	}

	released := strings.TrimSpace(remote.runAs(nobody, "true\n", "qsub", "-h").stdout)
	if r := remote.runAs(nobody, "", "qrls", released); r.code != 0 {
		t.Fatalf("remote qrls as nobody: exit %d %q", r.code, r.stderr)
	}
	// Reservations over TCP: pbs_rsub, pbs_rstat, pbs_rdel as nobody.
	r = remote.runAs(nobody, "", "pbs_rsub", "-R", at(time.Now().Add(time.Hour)), "-D", "600", "-l", "select=1:ncpus=1")
	resv, _, _ := strings.Cut(r.stdout, " ")
	if r.code != 0 || !strings.HasPrefix(resv, "R") {
		t.Fatalf("remote pbs_rsub as nobody: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := remote.runAs(nobody, "", "pbs_rstat", "-f", resv); r.code != 0 || !strings.Contains(r.stdout, "Reserve_Owner = nobody@"+host) {
		t.Fatalf("remote pbs_rstat: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := remote.runAs(nobody, "", "pbs_ralter", "-N", "remote", resv); r.code != 0 || r.stdout != "pbs_ralter: "+resv+" ALTER REQUESTED\n" {
		t.Fatalf("remote pbs_ralter: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := remote.runAs(nobody, "", "pbs_rdel", resv); r.code != 0 {
		t.Fatalf("remote pbs_rdel: exit %d %q", r.code, r.stderr)
	}

	// Root of a login host submits only when acl_roots names root@host
	// (allow_root_jobs is the server host's).
	if r := remote.runWithInput("sleep 60\n", "qsub"); r.code != 159 || !strings.Contains(r.stderr, "root may not submit") {
		t.Fatalf("remote qsub as root before acl_roots: exit %d %q", r.code, r.stderr)
	}
	local.must("qmgr", "-c", "set server acl_roots = root@"+host)
	rootJob := strings.TrimSpace(remote.runWithInput("sleep 60\n", "qsub").stdout)
	if j := remote.job(rootJob); j["Job_Owner"] != "root@"+host {
		t.Fatalf("remote root's job %q: owner %v", rootJob, j["Job_Owner"])
	}
	// ... but not root's.
	if r := remote.runAs(nobody, "", "qdel", rootJob); r.code != 159 || r.stderr != "qdel: Unauthorized Request  "+rootJob+"\n" {
		t.Fatalf("remote qdel of root's job by nobody: exit %d %q", r.code, r.stderr)
	}
	if r := remote.runAs(nobody, "", "qdel", userJob); r.code != 0 {
		t.Fatalf("remote qdel of its own job: exit %d %q", r.code, r.stderr)
	}

	// Root of a login host is no manager of the cluster ...
	if r := remote.run("qmgr", "-c", "set server comment = from-login"); r.code != 159 || !strings.Contains(r.stderr, "Unauthorized Request") {
		t.Fatalf("remote qmgr as root before managers names it: exit %d %q", r.code, r.stderr)
	}
	// ... until managers names root@host (set on the server host).
	local.must("qmgr", "-c", "set server managers += root@"+host)
	remote.must("qmgr", "-c", "set server comment = from-login")
	if out := remote.must("qmgr", "-c", "list server comment"); !strings.Contains(out, "from-login") {
		t.Fatalf("qmgr list over TCP: %q", out)
	}
	if out := remote.must("pbsnodes", "-a"); !strings.Contains(out, "node1") {
		t.Fatalf("remote pbsnodes: %q", out)
	}
	remote.waitState(rootJob, 30*time.Second, "R")
	remote.must("qdel", rootJob)
	remote.waitState(rootJob, 30*time.Second, "F")
	if out := remote.must("tracejob", rootJob); !strings.Contains(out, "Job Queued at request of root@"+host) {
		t.Fatalf("remote tracejob: %q", out)
	}

	// acl_hosts: a login host not listed may request nothing.
	local.must("qmgr", "-c", "set server acl_hosts = login9.example")
	local.must("qmgr", "-c", "set server acl_host_enable = true")
	if r := remote.runAs(nobody, "", "qstat"); r.code != 159 || !strings.Contains(r.stderr, "not in acl_hosts") {
		t.Fatalf("remote qstat from a host not in acl_hosts: exit %d %q", r.code, r.stderr)
	}
	local.must("qmgr", "-c", "set server acl_hosts += "+host)
	if r := remote.runAs(nobody, "", "qstat"); r.code != 0 {
		t.Fatalf("remote qstat once the host is listed: exit %d %q", r.code, r.stderr)
	}
}

// TestRemoteRefusals: a credential of another MUNGE key, no munged at all,
// and the cluster's munged stopping with it.
func TestRemoteRefusals(t *testing.T) {
	_, remote := startRemoteCluster(t)
	foreign := *remote
	foreign.env = append(append([]string(nil), remote.env...), "STRATA_MUNGE_SOCKET="+mungetest.Start(t))
	if r := foreign.runAs(nobody, "sleep 1\n", "qsub"); r.code != 159 || r.stderr != "qsub: Unauthorized Request (munge: Invalid credential)\n" {
		t.Fatalf("qsub with a credential of another key: exit %d %q", r.code, r.stderr)
	}
	none := *remote
	none.env = append(append([]string(nil), remote.env...), "STRATA_MUNGE_SOCKET="+filepath.Join(remote.work, "no-munged"))
	if r := none.run("qstat"); r.code == 0 || !strings.Contains(r.stderr, "qstat: cannot connect to server") || !strings.Contains(r.stderr, "munge") {
		t.Fatalf("qstat without munged: exit %d %q", r.code, r.stderr)
	}
	// Without a CA to check the server with, nothing is sent.
	noCA := *remote
	noCA.env = append(append([]string(nil), remote.env...), "STRATA_CA_FILE="+filepath.Join(remote.work, "no-ca.pem"))
	if r := noCA.run("qstat"); r.code == 0 || !strings.Contains(r.stderr, "cluster CA") {
		t.Fatalf("qstat without the CA: exit %d %q", r.code, r.stderr)
	}

	d := munge.Daemon{Dir: filepath.Join(remote.dir, "munge")}
	if d.Pid() == 0 {
		t.Fatal("the cluster's munged is not running")
	}
	if out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "stop", "--dir", remote.dir).CombinedOutput(); err != nil {
		t.Fatalf("cluster stop: %v\n%s", err, out)
	}
	if d.Pid() != 0 {
		t.Fatal("cluster stop left its munged running")
	}
	if _, err := os.Stat(d.KeyFile()); err != nil {
		t.Fatalf("munge key kept for the next start: %v", err)
	}
}

// TestRemoteHAForwarding: with three servers, a login host's write to a
// follower is forwarded to the leader under the identity the follower
// decoded from the credential; an unreachable first server in PBS_SERVER
// is skipped.
func TestRemoteHAForwarding(t *testing.T) {
	if err := munge.Installed(); err != nil {
		t.Skipf("skipping remote commands: %v", err)
	}
	c, _ := prepareCluster(t, "strata-e2e-remote-ha-", []string{"server1.log", "server2.log", "server3.log"}, 2000)
	out, err := exec.Command(filepath.Join(binDir, "strata"), "cluster", "start", "--dir", c.dir, "--servers", "3",
		"--moms", "1", "--ncpus", "2", "--mem", "4gb", "--name", "e2e", "--remote-clients").CombinedOutput()
	if err != nil {
		t.Fatalf("cluster start --servers 3 --remote-clients: %v\n%s", err, out)
	}
	remote := *c
	remote.env = sourced(t, filepath.Join(c.dir, "env.remote"))
	if v, _ := envValue(remote.env, "PBS_SERVER"); strings.Count(v, ",") != 2 {
		t.Fatalf("env.remote PBS_SERVER=%q does not list 3 servers", v)
	}
	lead := c.leader(30 * time.Second)
	var follower haProc
	for _, p := range c.status() {
		if p.Role == "server" && p.Name != lead.Name {
			follower = p
			break
		}
	}
	// The first address refuses connections; the follower answers.
	viaFollower := remote
	viaFollower.env = append(append([]string(nil), remote.env...), "PBS_SERVER=127.0.0.1:1,"+apiOf(follower))
	r := viaFollower.runAs(nobody, "sleep 30\n", "qsub", "-h")
	id := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasSuffix(id, ".e2e") {
		t.Fatalf("remote qsub through a follower: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	j := viaFollower.job(id)
	if !strings.HasPrefix(str(j["Job_Owner"]), "nobody@") {
		t.Fatalf("forwarded job owner %v", j["Job_Owner"])
	}
	if r := viaFollower.runAs(nobody, "", "qdel", id); r.code != 0 {
		t.Fatalf("remote qdel through a follower: exit %d %q", r.code, r.stderr)
	}
	// Root of the login host is still no manager after forwarding.
	if r := viaFollower.run("qmgr", "-c", "set server comment = x"); r.code != 159 {
		t.Fatalf("remote root's qmgr through a follower: exit %d %q", r.code, r.stderr)
	}
}
