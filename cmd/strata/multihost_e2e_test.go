//go:build e2e

package main

// The deployment guide (docs/deploy.md), performed step by step on hosts
// that are network and UTS namespaces of this machine (netns_harness).
// Each subtest is the guide's step of the same number; a step that fails
// stops the test, since later steps build on it.

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/internal/sshtest"
)

// serverEnv is the environment of commands on a server host: its socket
// (an installed server uses the default, /run/strata/strata.sock).
func serverEnv(h *netHost) []string {
	return []string{"STRATA_SOCKET=" + h.path("run/strata/strata.sock")}
}

// deployServer performs the guide's server steps on h: the example
// configuration with the host's paths, the given keys and tables (appended
// at the end), started as the unit would.
func deployServer(t *testing.T, nc *netCluster, h *netHost, extra map[string]string, tables string) {
	t.Helper()
	cfg := installExample(t, h, "server.toml")
	if tables != "" {
		f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(tables)
		f.Close()
	}
	kv := map[string]string{
		// Test only: the installed defaults are /var/lib/strata/server
		// and /run/strata/strata.sock; here each host has its own tree.
		"data_dir": fmt.Sprintf("%q", h.path("var/lib/strata/server")),
		"socket":   fmt.Sprintf("%q", h.path("run/strata/strata.sock")),
	}
	for k, v := range extra {
		kv[k] = v
	}
	editTOML(t, cfg, kv)
	nc.startDaemon(h, "server", "server", "--config", cfg)
}

// deployAgent performs the guide's agent steps on compute host h: the
// certificate files issued on ca (the host holding the CA) copied over,
// the example configuration pointed at the server, the agent started.
func deployAgent(t *testing.T, nc *netCluster, ca, h *netHost, server string) {
	t.Helper()
	tlsDir := ca.path("etc/strata/tls")
	nc.must(ca, "strata", "tls", "issue", "--dir", tlsDir, "--host", h.name)
	copyFile(t, filepath.Join(tlsDir, "ca.pem"), h.path("etc/strata/tls/ca.pem"), 0o644)
	copyFile(t, filepath.Join(tlsDir, "agent-"+h.name+".pem"), h.path("etc/strata/tls/agent.pem"), 0o644)
	copyFile(t, filepath.Join(tlsDir, "agent-"+h.name+"-key.pem"), h.path("etc/strata/tls/agent-key.pem"), 0o600)
	cfg := installExample(t, h, "mom.toml")
	editTOML(t, cfg, map[string]string{
		"server": server,
		// Test only: the installed defaults are /var/spool/strata/mom
		// and /var/tmp.
		"spool":  fmt.Sprintf("%q", h.path("var/spool/strata/mom")),
		"tmpdir": fmt.Sprintf("%q", h.path("var/tmp")),
	})
	// The guide's shared home directories: every host sees them, so
	// output is written in place (usecp), not copied over SSH.
	appendFile(t, cfg, fmt.Sprintf("\n[[usecp]]\nhost = \"*\"\nremote = %q\nlocal = %q\n", nc.shared, nc.shared))
	nc.startDaemon(h, "mom", "mom", "--config", cfg)
}

// waitNodesFree polls pbsnodes on h until every named host is free.
func waitNodesFree(t *testing.T, nc *netCluster, h *netHost, env []string, names ...string) {
	t.Helper()
	var last string
	deadline := time.Now().Add(30 * time.Second)
	for {
		nc.checkDaemons(t)
		r := nc.run(h, false, env, "", "", "pbsnodes", "-a", "-F", "json")
		last = r.stdout + r.stderr
		var doc struct {
			Nodes map[string]map[string]any `json:"nodes"`
		}
		ok := r.code == 0 && json.Unmarshal([]byte(r.stdout), &doc) == nil
		for _, n := range names {
			ok = ok && doc.Nodes[n] != nil && doc.Nodes[n]["state"] == "free"
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("hosts %v not free within 30s; pbsnodes on %s:\n%s", names, h.name, last)
		}
		time.Sleep(100 * time.Millisecond) // polling with a deadline
	}
}

// jobStatus is qstat -xf -F json for one job, run on h.
func jobStatus(t *testing.T, nc *netCluster, h *netHost, env []string, id string) map[string]any {
	t.Helper()
	r := nc.run(h, false, env, "", "", "qstat", "-xf", "-F", "json", id)
	if r.code != 0 {
		t.Fatalf("qstat %s on %s: exit %d %s", id, h.name, r.code, r.stderr)
	}
	var doc struct {
		Jobs map[string]map[string]any `json:"Jobs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("qstat json: %v\n%s", err, r.stdout)
	}
	return doc.Jobs[id]
}

// waitJobDone polls until the job finished and returns its status.
func waitJobDone(t *testing.T, nc *netCluster, h *netHost, env []string, id string) map[string]any {
	t.Helper()
	var j map[string]any
	waitFor(t, 60*time.Second, "job "+id+" to finish", func() bool {
		nc.checkDaemons(t)
		j = jobStatus(t, nc, h, env, id)
		return j["job_state"] == "F"
	})
	return j
}

// submitAsUser writes a script in the shared directory and submits it as
// the plain user from h; it returns the job id.
func submitAsUser(t *testing.T, nc *netCluster, h *netHost, env []string, script string, args ...string) string {
	t.Helper()
	f := filepath.Join(nc.shared, fmt.Sprintf("job%d.sh", time.Now().UnixNano()))
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	// The plain user's login shell is nologin: the job names its shell.
	r := nc.run(h, true, env, nc.shared, "", append(append([]string{"qsub", "-S", "/bin/sh"}, args...), f)...)
	if r.code != 0 {
		t.Fatalf("qsub on %s as uid %d: exit %d\n%s", h.name, plainUID, r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// TestDeployGuideOneServer performs docs/deploy.md, "One server and N
// compute hosts", on hosts srv, c1, c2 and login.
func TestDeployGuideOneServer(t *testing.T) {
	nc := newNetCluster(t, "srv", "c1", "c2", "login")
	srv, c1, c2, login := nc.hosts["srv"], nc.hosts["c1"], nc.hosts["c2"], nc.hosts["login"]
	env := serverEnv(srv)

	step(t, "2 certificates", func(t *testing.T) {
		out := nc.must(srv, "strata", "tls", "init", "--dir", srv.path("etc/strata/tls"), "--host", "srv", "--host", srv.addr)
		if !strings.Contains(out, "created ca.pem") {
			t.Fatalf("tls init: %s", out)
		}
		if fi, err := os.Stat(srv.path("etc/strata/tls/ca-key.pem")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("ca-key.pem: %v %v", fi, err)
		}
	})
	step(t, "3 server", func(t *testing.T) {
		deployServer(t, nc, srv, nil, "")
		waitFor(t, 30*time.Second, "the server to answer qstat -B on srv", func() bool {
			nc.checkDaemons(t)
			return nc.run(srv, false, env, "", "", "qstat", "-B").code == 0
		})
		// The server's name defaults to the host's (job ids <seq>.srv).
		if out := nc.must(srv, "env", env[0], "qstat", "-B"); !strings.Contains(out, "srv") {
			t.Errorf("qstat -B on srv does not name server srv:\n%s", out)
		}
	})
	step(t, "4 agents", func(t *testing.T) {
		deployAgent(t, nc, srv, c1, `"srv:15001"`)
		deployAgent(t, nc, srv, c2, `"srv:15001"`)
		waitNodesFree(t, nc, srv, env, "c1", "c2")
	})
	step(t, "ports and firewall", func(t *testing.T) {
		// The port table of the guide: agents listen on nothing, the
		// server on 15001 for the network and 15002 on loopback only.
		if out := nc.must(c1, "ss", "-Hltn"); strings.TrimSpace(out) != "" {
			t.Errorf("compute host c1 listens on:\n%s", out)
		}
		out := nc.must(srv, "ss", "-Hltn")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !regexp.MustCompile(`(0\.0\.0\.0|\*|\[::\]):15001 `).MatchString(out) || !strings.Contains(out, "127.0.0.1:15002 ") || len(lines) != 2 {
			t.Errorf("server listens on:\n%s\nwant *:15001 and 127.0.0.1:15002 only", out)
		}
		if r := nc.run(c1, false, nil, "", "", "bash", "-c", "exec 3<>/dev/tcp/srv/15002"); r.code == 0 {
			t.Error("c1 reaches the Raft port of a one-server cluster")
		}
	})
	step(t, "5 jobs as a user land on the compute hosts", func(t *testing.T) {
		script := "#!/bin/sh\nhostname\nid -un\n"
		ids := map[string]string{}
		for _, host := range []string{"c1", "c2"} {
			ids[host] = submitAsUser(t, nc, srv, env, script, "-N", "where", "-l", "select=1:ncpus=1:host="+host)
		}
		for host, id := range ids {
			j := waitJobDone(t, nc, srv, env, id)
			if fmt.Sprint(j["exec_host"]) != host+"/0" || fmt.Sprint(j["Exit_status"]) != "0" {
				t.Errorf("job %s: exec_host %v, Exit_status %v; want %s/0 and 0", id, j["exec_host"], j["Exit_status"], host)
			}
			seq, _, _ := strings.Cut(id, ".")
			out, err := os.ReadFile(filepath.Join(nc.shared, "where.o"+seq))
			if err != nil || string(out) != host+"\nnobody\n" {
				t.Errorf("job %s output: %q (%v); want %q", id, out, err, host+"\nnobody\n")
			}
		}
	})
	step(t, "6 login host", func(t *testing.T) { loginHostStep(t, nc, login, srv) })
	step(t, "7 rotate an agent certificate", func(t *testing.T) {
		tlsDir := srv.path("etc/strata/tls")
		nc.must(srv, "strata", "tls", "issue", "--dir", tlsDir, "--host", "c1", "--cert", filepath.Join(tlsDir, "agent-c1-new.pem"))
		copyFile(t, filepath.Join(tlsDir, "agent-c1-new-key.pem"), c1.path("etc/strata/tls/agent-key.pem"), 0o600)
		copyFile(t, filepath.Join(tlsDir, "agent-c1-new.pem"), c1.path("etc/strata/tls/agent.pem"), 0o644)
		id := submitAsUser(t, nc, srv, env, "#!/bin/sh\nhostname\n", "-N", "rotated", "-l", "select=1:ncpus=1:host=c1")
		if j := waitJobDone(t, nc, srv, env, id); fmt.Sprint(j["Exit_status"]) != "0" {
			t.Errorf("job after rotation: %v", j)
		}
	})
	step(t, "8 upgrade: restart agents and the server, jobs keep running", func(t *testing.T) {
		id := submitAsUser(t, nc, srv, env, "#!/bin/sh\nsleep 4\nhostname\n", "-N", "upgrade", "-l", "select=1:ncpus=1:host=c2")
		waitFor(t, 30*time.Second, "job "+id+" to run", func() bool { return jobStatus(t, nc, srv, env, id)["job_state"] == "R" })
		nc.restartDaemon(c2, "mom")
		nc.restartDaemon(srv, "server")
		// Until it has replayed its Raft log (it leads again), a restarted
		// server answers as if it had no jobs: wait for this one.
		waitFor(t, 30*time.Second, "the restarted server to know job "+id, func() bool {
			return nc.run(srv, false, env, "", "", "qstat", id).code == 0
		})
		j := waitJobDone(t, nc, srv, env, id)
		seq, _, _ := strings.Cut(id, ".")
		out, _ := os.ReadFile(filepath.Join(nc.shared, "upgrade.o"+seq))
		if fmt.Sprint(j["Exit_status"]) != "0" || string(out) != "c2\n" {
			t.Errorf("job across restarts: Exit_status %v, output %q", j["Exit_status"], out)
		}
		waitNodesFree(t, nc, srv, env, "c1", "c2")
	})
	step(t, "9 backup and restore", func(t *testing.T) {
		snap := srv.path("var/backups/strata.snap")
		os.MkdirAll(filepath.Dir(snap), 0o700)
		nc.must(srv, "env", env[0], "strata", "operator", "snapshot", "save", snap)
		if fi, err := os.Stat(snap); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("snapshot file: %v %v", fi, err)
		}
		later := submitAsUser(t, nc, srv, env, "#!/bin/sh\ntrue\n", "-h")
		nc.must(srv, "env", env[0], "strata", "operator", "snapshot", "restore", snap)
		if r := nc.run(srv, false, env, "", "", "qstat", later); r.code == 0 {
			t.Errorf("job %s submitted after the backup still exists after the restore:\n%s", later, r.stdout)
		}
	})
}

// step runs one step of the guide as a subtest and stops the test when it
// fails: later steps need it.
func step(t *testing.T, name string, fn func(t *testing.T)) {
	t.Helper()
	if !t.Run(name, fn) {
		t.FailNow()
	}
}

// waitLeader polls qstat -B on h until it names a leader of 3 voting
// servers.
func waitLeader(t *testing.T, nc *netCluster, h *netHost) {
	t.Helper()
	waitFor(t, 60*time.Second, "a leader of 3 voting servers in qstat -B on "+h.name, func() bool {
		nc.checkDaemons(t)
		r := nc.run(h, false, serverEnv(h), "", "", "qstat", "-B")
		return r.code == 0 && strings.Contains(r.stdout, "Leader: srv") && strings.Contains(r.stdout, "3 voting servers")
	})
}

// TestDeployGuideThreeServers performs docs/deploy.md, "Three servers", on
// hosts srv1..srv3 and c1: per-server certificates, [[peer]] tables, agents
// with every server; a job runs, the leader is stopped, the next job runs.
func TestDeployGuideThreeServers(t *testing.T) {
	nc := newNetCluster(t, "srv1", "srv2", "srv3", "c1")
	servers := []*netHost{nc.hosts["srv1"], nc.hosts["srv2"], nc.hosts["srv3"]}
	ca, c1 := servers[0], nc.hosts["c1"]
	tlsDir := ca.path("etc/strata/tls")

	step(t, "1 server certificates", func(t *testing.T) {
		nc.must(ca, "strata", "tls", "init", "--dir", tlsDir, "--host", ca.name, "--host", ca.addr)
		for _, h := range servers[1:] {
			nc.must(ca, "strata", "tls", "issue", "--server", "--dir", tlsDir, "--host", h.name, "--host", h.addr)
			copyFile(t, filepath.Join(tlsDir, "ca.pem"), h.path("etc/strata/tls/ca.pem"), 0o644)
			copyFile(t, filepath.Join(tlsDir, "server-"+h.name+".pem"), h.path("etc/strata/tls/server.pem"), 0o644)
			copyFile(t, filepath.Join(tlsDir, "server-"+h.name+"-key.pem"), h.path("etc/strata/tls/server-key.pem"), 0o600)
		}
	})
	step(t, "2-3 peers and start", func(t *testing.T) {
		var peers strings.Builder
		for _, h := range servers {
			fmt.Fprintf(&peers, "\n[[peer]]\nid = %q\nraft_addr = \"%s:15002\"\napi_addr = \"%s:15001\"\n", h.name, h.addr, h.addr)
		}
		for _, h := range servers {
			deployServer(t, nc, h, map[string]string{"node_id": fmt.Sprintf("%q", h.name), "raft_addr": fmt.Sprintf("\"%s:15002\"", h.addr)}, peers.String())
		}
		waitLeader(t, nc, servers[0])
	})
	step(t, "4 agents with every server", func(t *testing.T) {
		deployAgent(t, nc, ca, c1, `"srv1:15001"`)
		editTOML(t, c1.path("etc/strata/mom.toml"), map[string]string{
			"server":  "",
			"servers": `["srv1:15001", "srv2:15001", "srv3:15001"]`,
		})
		nc.restartDaemon(c1, "mom")
		waitNodesFree(t, nc, servers[1], serverEnv(servers[1]), "c1")
	})
	step(t, "5 commands on any server; a job runs, also without the leader", func(t *testing.T) {
		env := serverEnv(servers[2])
		id := submitAsUser(t, nc, servers[2], env, "#!/bin/sh\nhostname\n", "-N", "ha1")
		if j := waitJobDone(t, nc, servers[2], env, id); fmt.Sprint(j["exec_host"]) != "c1/0" || fmt.Sprint(j["Exit_status"]) != "0" {
			t.Fatalf("job %s: %v", id, j)
		}
		out := nc.must(servers[0], "env", serverEnv(servers[0])[0], "qstat", "-B")
		var leader *netHost
		for _, h := range servers {
			if strings.Contains(out, "Leader: "+h.name+" ") {
				leader = h
			}
		}
		if leader == nil {
			t.Fatalf("no leader named in\n%s", out)
		}
		nc.stopDaemon(leader.name + "/server")
		var other *netHost
		for _, h := range servers {
			if h != leader {
				other = h
			}
		}
		env = serverEnv(other)
		var id2 string
		waitFor(t, 60*time.Second, "a submission after the leader "+leader.name+" stopped", func() bool {
			r := nc.run(other, true, env, nc.shared, "", "qsub", "-S", "/bin/sh", "-N", "ha2", "--", "/bin/hostname")
			id2 = strings.TrimSpace(r.stdout)
			return r.code == 0
		})
		j := waitJobDone(t, nc, other, env, id2)
		seq, _, _ := strings.Cut(id2, ".")
		b, _ := os.ReadFile(filepath.Join(nc.shared, "ha2.o"+seq))
		if fmt.Sprint(j["Exit_status"]) != "0" || string(b) != "c1\n" {
			t.Errorf("job %s without the leader: Exit_status %v, output %q", id2, j["Exit_status"], b)
		}
		nc.startDaemon(leader, "server", nc.args[leader.name+"/server"]...)
	})
	step(t, "8 rolling upgrade: one server at a time", func(t *testing.T) {
		for _, h := range servers {
			waitLeader(t, nc, h)
			nc.restartDaemon(h, "server")
		}
		env := serverEnv(servers[0])
		var id string
		waitFor(t, 60*time.Second, "a submission after the rolling restart", func() bool {
			r := nc.run(servers[0], true, env, nc.shared, "", "qsub", "-S", "/bin/sh", "--", "/bin/true")
			id = strings.TrimSpace(r.stdout)
			return r.code == 0
		})
		if j := waitJobDone(t, nc, servers[0], env, id); fmt.Sprint(j["Exit_status"]) != "0" {
			t.Errorf("job after the rolling restart: %v", j)
		}
	})
}

// loginHostStep is the guide's step 6 and its "Login nodes and munge" and
// "Output delivery without a shared filesystem" sections, on hosts of
// their own: munged with one key on srv and login, the server's [munge]
// enabled, then the plain user on login, with no Unix socket
// (PBS_SERVER=srv:15001 and the CA file): qsub of a job whose output goes
// to login:<a directory only login uses>, qstat from login, and the output
// delivered by c1's agent over SSH to login's SSH server, as the user.
func loginHostStep(t *testing.T, nc *netCluster, login, srv *netHost) {
	r := nc.run(login, false, nil, "", "", "sh", "-c", "hostname; getent hosts srv")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "login\n") || !strings.Contains(r.stdout, srv.addr) {
		t.Fatalf("login host: %q %q", r.stdout, r.stderr)
	}
	// Without a socket of its own and without munge, a login host has no
	// way in: a command there cannot reach the server's Unix socket.
	if r := nc.run(login, true, []string{"STRATA_SOCKET=" + login.path("run/strata/strata.sock")}, "", "", "qstat"); r.code == 0 {
		t.Errorf("qstat on the login host succeeded without a server socket: %s", r.stdout)
	}
	if err := munge.Installed(); err != nil {
		t.Skipf("login host step skipped: munge is not installed (%v)", err)
	}

	// 1. MUNGE: one key, a munged on the server and on the login host.
	key := make([]byte, 1024)
	rand.Read(key)
	sockets := map[string]string{}
	for _, h := range []*netHost{srv, login} {
		d := munge.Daemon{Dir: h.path("run/munge")}
		os.MkdirAll(d.Dir, 0o755)
		os.Chmod(d.Dir, 0o755)
		if err := os.WriteFile(d.KeyFile(), key, 0o600); err != nil {
			t.Fatal(err)
		}
		munged, err := exec.LookPath("munged")
		if err != nil {
			munged = "/usr/sbin/munged"
		}
		nc.startProgram(h, "munged", munged, "--foreground", "--socket="+d.Socket(), "--key-file="+d.KeyFile(),
			"--pid-file="+filepath.Join(d.Dir, "munged.pid"), "--seed-file="+filepath.Join(d.Dir, "munged.seed"), "--log-file="+d.LogFile())
		waitFor(t, 10*time.Second, "munged on "+h.name, func() bool { return munge.Listening(d.Socket()) })
		sockets[h.name] = d.Socket()
	}
	// 2. The server accepts MUNGE credentials on api_addr.
	appendFile(t, srv.path("etc/strata/server.toml"), fmt.Sprintf("\n[munge]\nenable = true\nsocket = %q\n", sockets["srv"]))
	nc.restartDaemon(srv, "server")
	waitFor(t, 30*time.Second, "the server back after enabling munge", func() bool {
		return nc.run(srv, false, serverEnv(srv), "", "", "qstat", "-B").code == 0
	})
	// 3. The login host: the CA certificate and the client settings.
	ca := login.path("etc/strata/ca.pem")
	copyFile(t, srv.path("etc/strata/tls/ca.pem"), ca, 0o644)
	remote := []string{"PBS_SERVER=srv:15001", "STRATA_CA_FILE=" + ca, "STRATA_MUNGE_SOCKET=" + sockets["login"]}

	// The login host's SSH server, and the user's key and known_hosts for
	// the agents (docs/deploy.md, "Output delivery without a shared
	// filesystem").
	userKey, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	sshd, err := sshtest.Serve(nc.listenIn(login, login.addr+":0"), "/", userKey.Signer.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sshd.Close)
	userSSH := filepath.Join(nc.base, "userssh")
	os.MkdirAll(userSSH, 0o755)
	writeOwned(t, filepath.Join(userSSH, "id_ed25519"), userKey.PEM, 0o600)
	writeOwned(t, filepath.Join(userSSH, "known_hosts"), []byte(sshd.KnownHostsLine("login")+"\n"), 0o644)
	for _, c := range []*netHost{nc.hosts["c1"], nc.hosts["c2"]} {
		appendFile(t, c.path("etc/strata/mom.toml"), fmt.Sprintf("\n[ssh]\nport = %d\nidentity_files = [%q]\nuser_known_hosts = [%q]\nconnect_timeout = \"5s\"\n",
			sshd.Port(), filepath.Join(userSSH, "id_ed25519"), filepath.Join(userSSH, "known_hosts")))
		nc.restartDaemon(c, "mom")
	}
	waitNodesFree(t, nc, srv, serverEnv(srv), "c1", "c2")

	// 4. What users see: qsub and qstat on login, output back on login.
	outDir := login.path("home/out")
	os.MkdirAll(outDir, 0o755)
	os.Chown(outDir, plainUID, plainGID)
	r = nc.run(login, true, remote, outDir, "", "qsub", "-S", "/bin/sh", "-N", "fromlogin", "-l", "select=1:ncpus=1:host=c1",
		"-o", "login:"+filepath.Join(outDir, "result.txt"), "-j", "oe", "--", "/bin/sh", "-c", "hostname; id -un")
	if r.code != 0 {
		t.Fatalf("qsub on login over TCP with munge: exit %d\n%s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	var j map[string]any
	waitFor(t, 60*time.Second, "job "+id+" seen from login to finish", func() bool {
		nc.checkDaemons(t)
		j = jobStatus(t, nc, login, remote, id)
		return j["job_state"] == "F"
	})
	if !strings.HasPrefix(fmt.Sprint(j["Job_Owner"]), "nobody@login") || fmt.Sprint(j["Submit_Host"]) != "login" {
		t.Errorf("job from login: Job_Owner %v, Submit_Host %v; want nobody@login and login", j["Job_Owner"], j["Submit_Host"])
	}
	waitFor(t, 20*time.Second, "the output delivered to login over SSH", func() bool {
		b, _ := os.ReadFile(filepath.Join(outDir, "result.txt"))
		return string(b) == "c1\nnobody\n"
	})
	if logins := sshd.Logins(); len(logins) == 0 || logins[0] != "nobody" {
		t.Errorf("SSH logins on login: %v, want the job owner", logins)
	}
}

// writeOwned writes a file owned by the plain user.
func writeOwned(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	os.Chown(path, plainUID, plainGID)
	os.Chmod(path, mode)
}
