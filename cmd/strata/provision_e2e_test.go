//go:build e2e

package main

// End-to-end tests of AOE provisioning (docs/provisioning.md): real
// agents, real hook executables, the local cluster's simulated reboots
// and, for the ssh mode, an x/crypto/ssh server started on loopback.

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// startProvCluster starts a cluster of 2-cpu agents with an extra server
// configuration.
func startProvCluster(t *testing.T, moms int, serverConfig string) *cluster {
	t.Helper()
	return newCluster(t, moms, 2, serverConfig)
}

// provHook installs the single provision hook from a shell script body.
func (c *cluster) provHook(body string, attrs ...string) {
	c.t.Helper()
	f := filepath.Join(c.work, "prov.sh")
	os.WriteFile(f, []byte("#!/bin/sh\n"+body+"\n"), 0o755)
	c.must("qmgr", "-c", "create hook prov event=provision")
	for _, a := range attrs {
		c.must("qmgr", "-c", "set hook prov "+a)
	}
	c.must("qmgr", "-c", "import hook prov application/x-executable default "+f)
}

func (c *cluster) provNode(node, aoes string) {
	c.t.Helper()
	c.must("qmgr", "-c", fmt.Sprintf(`set node %s provision_enable = true, resources_available.aoe = "%s"`, node, aoes))
}

// node reads one attribute block of pbsnodes.
func (c *cluster) nodeAttr(node, attr string) string {
	out := c.must("pbsnodes", node)
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), " = "); ok && k == attr {
			return v
		}
	}
	return ""
}

func (c *cluster) waitNode(node, attr, want string, timeout time.Duration) {
	c.t.Helper()
	waitFor(c.t, timeout, node+" "+attr+"="+want, func() bool { return c.nodeAttr(node, attr) == want })
}

func (c *cluster) waitSub(id, sub string, timeout time.Duration) map[string]any {
	c.t.Helper()
	var j map[string]any
	waitFor(c.t, timeout, id+" substate "+sub, func() bool { j = c.job(id); return str(j["substate"]) == sub })
	return j
}

const localHook = `sleep ${SLEEP:-2}
printf '%s\n' "$STRATA_HOOK_AOE" > "$STRATA_HOOK_AOE_FILE"
case "$STRATA_HOOK_AOE" in app*) exit 1 ;; bad*) exit 3 ;; esac
exit 0`

func TestProvisionRequests(t *testing.T) {
	c := startCluster(t, 1, 2)
	r := c.runWithInput("true\n", "qsub", "-l", "select=1:ncpus=1:aoe=A+1:ncpus=1:aoe=B")
	if r.code == 0 || !strings.Contains(r.stderr, "Invalid provisioning request in chunk(s)") {
		t.Errorf("two AOEs: %+v", r)
	}
	r = c.runWithInput("true\n", "qsub", "-l", "select=1:ncpus=1", "-l", "aoe=A")
	if r.code == 0 || !strings.Contains(r.stderr, `"-lresource=" cannot be used with "select" or "place", resource is: aoe`) {
		t.Errorf("-l aoe with select: %+v", r)
	}
	// Mixed chunks and a job-wide -l aoe are accepted.
	c.submit("true\n", "-h", "-l", "select=1:ncpus=1:aoe=A+1:ncpus=1")
	id := c.submit("true\n", "-h", "-l", "aoe=A")
	if j := c.job(id); !strings.Contains(str(j["Resource_List"].(map[string]any)["select"]), "aoe=A") {
		t.Errorf("-l aoe=A became %v", j["Resource_List"])
	}
	// Without an enabled provision hook a vnode needing it is not chosen.
	c.provNode("node1", "A,B")
	c.must("qrls", id)
	waitFor(t, 10*time.Second, "comment", func() bool {
		return str(c.job(id)["comment"]) == "Not Running: Cannot provision, provisioning disabled on server"
	})
	// Disable the vnode before the hook exists, so no cycle in between
	// can start provisioning it.
	c.must("qmgr", "-c", "set node node1 provision_enable = false")
	c.provHook(localHook)
	waitFor(t, 10*time.Second, "vnode comment", func() bool {
		return str(c.job(id)["comment"]) == "Not Running: Cannot provision, provisioning disabled on vnode"
	})
}

func TestProvisionAppOSAndFailures(t *testing.T) {
	c := startCluster(t, 2, 2)
	c.provHook(localHook, "alarm = 20")
	c.provNode("node1", "app1,os2,os3,bad4")
	c.must("qmgr", "-c", "set node node2 resources_available.aoe = os2") // not provisionable
	// Application provisioning: R/71, vnode provisioning, then the job runs.
	id := c.submit("sleep 1\n", "-l", "select=1:ncpus=1:aoe=app1")
	j := c.waitSub(id, "71", 10*time.Second)
	if str(j["job_state"]) != "R" || !strings.Contains(str(j["exec_vnode"]), "node1:aoe=app1") {
		t.Errorf("provisioning job: %v %v", j["job_state"], j["exec_vnode"])
	}
	c.waitNode("node1", "state", "provisioning", 5*time.Second)
	for _, args := range [][]string{{"qhold", id}, {"qsig", "-s", "USR1", id}, {"qdel", id}} {
		if r := c.run(args[0], args[1:]...); r.code == 0 || !strings.Contains(r.stderr, "Request invalid for state of job") {
			t.Errorf("%v on provisioning job: %+v", args, r)
		}
	}
	c.waitState(id, 20*time.Second, "F")
	if got := c.nodeAttr("node1", "current_aoe"); got != "app1" {
		t.Errorf("current_aoe after app provisioning: %q", got)
	}
	// OS provisioning: exit 0, the agent reboots (new boot id) and reports os2.
	id = c.submit("sleep 1\n", "-l", "select=1:ncpus=1:aoe=os2")
	c.waitSub(id, "71", 10*time.Second)
	c.waitState(id, 30*time.Second, "F")
	if got := c.nodeAttr("node1", "current_aoe"); got != "os2" {
		t.Errorf("current_aoe after OS provisioning: %q", got)
	}
	// avoid-free: node2 already runs os2? no: it offers os2 without being
	// provisionable, so a job for os3 provisions node1.
	// Hook failure: vnode offline with PBS's comment, job requeued.
	id = c.submit("true\n", "-l", "select=1:ncpus=1:aoe=bad4")
	c.waitNode("node1", "comment", "Vnode offlined since it failed provisioning", 20*time.Second)
	if st := c.nodeAttr("node1", "state"); st != "offline" || c.nodeAttr("node1", "current_aoe") != "" {
		t.Errorf("failed vnode: state %q current_aoe %q", st, c.nodeAttr("node1", "current_aoe"))
	}
	c.waitState(id, 10*time.Second, "Q")
	c.must("qdel", id)
	c.must("qmgr", "-c", "set node node1 state -= offline")
	c.must("qmgr", "-c", "unset node node1 comment")
	// AOE mismatch: the hook exits 0 without changing the image.
	c.must("qmgr", "-c", "delete hook prov")
	c.provHook("sleep 1; exit 0", "alarm = 20")
	id = c.submit("true\n", "-l", "select=1:ncpus=1:aoe=os3")
	j = c.waitState(id, 30*time.Second, "H")
	if str(j["comment"]) != "job held, provisioning failed to start" {
		t.Errorf("mismatch comment: %v", j["comment"])
	}
}

func TestProvisionConcurrencyTimeoutAndForceDelete(t *testing.T) {
	c := startCluster(t, 2, 2)
	c.provHook("sleep ${SLEEP:-3}; exit 1", "alarm = 30")
	c.provNode("node1", "app1")
	c.provNode("node2", "app1")
	c.must("qmgr", "-c", "set server max_concurrent_provision = 1")
	a := c.submit("sleep 1\n", "-l", "select=1:ncpus=2:aoe=app1")
	b := c.submit("sleep 1\n", "-l", "select=1:ncpus=2:aoe=app1")
	c.waitSub(a, "71", 10*time.Second)
	c.waitSub(b, "71", 10*time.Second)
	states := c.nodeAttr("node1", "state") + "," + c.nodeAttr("node2", "state")
	if !strings.Contains(states, "wait-provisioning") || !strings.Contains(states, "provisioning") {
		t.Errorf("with max_concurrent_provision=1: %s", states)
	}
	// Raising the limit starts the waiting host at once.
	c.must("qmgr", "-c", "set server max_concurrent_provision = 2")
	waitFor(t, 3*time.Second, "both provisioning", func() bool {
		return c.nodeAttr("node1", "state") == "provisioning" && c.nodeAttr("node2", "state") == "provisioning"
	})
	c.waitState(a, 20*time.Second, "F")
	c.waitState(b, 20*time.Second, "F")
	out := c.must("strata", "provision", "status")
	if !strings.Contains(out, "app1") {
		t.Errorf("provision status: %s", out)
	}
	// Timeout: the alarm covers the hook; the vnode is offlined, the job requeued.
	c.must("qmgr", "-c", "delete hook prov")
	c.provHook("sleep 30; exit 1", "alarm = 2")
	c.must("qmgr", "-c", `set node node1 resources_available.aoe = "app1,app2"`)
	c.must("qmgr", "-c", "set node node2 provision_enable = false")
	id := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app2")
	c.waitNode("node1", "comment", "Vnode offlined since it failed provisioning", 15*time.Second)
	c.waitState(id, 5*time.Second, "Q")
	// The server log says it as PBS does, not as a failure with status -1.
	logText, _ := os.ReadFile(filepath.Join(c.dir, "server1.log"))
	if want := "Provisioning of node1 with app2 for " + id + " timed out"; !strings.Contains(string(logText), want) {
		t.Errorf("server log lacks %q", want)
	}
	if strings.Contains(string(logText), "exit status=-1") {
		t.Errorf("server log reports the timeout as a failure with status -1")
	}
	c.must("qdel", id)
	// qdel -W force works on a provisioning job.
	c.must("qmgr", "-c", "set node node1 state -= offline")
	c.must("qmgr", "-c", "set hook prov alarm = 60")
	id = c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app1")
	c.waitSub(id, "71", 10*time.Second)
	c.must("qdel", "-W", "force", id)
	c.waitState(id, 5*time.Second, "F")
}

func TestProvisionServerRestartResumes(t *testing.T) {
	c := startCluster(t, 1, 2)
	c.provHook(strings.Replace(localHook, "${SLEEP:-2}", "4", 1), "alarm = 60")
	c.provNode("node1", "os2")
	id := c.submit("sleep 1\n", "-l", "select=1:ncpus=1:aoe=os2")
	c.waitSub(id, "71", 10*time.Second)
	c.kill9("server1")
	c.restart()
	c.waitState(id, 40*time.Second, "F")
	j := c.job(id)
	if str(j["Exit_status"]) != "0" || c.nodeAttr("node1", "current_aoe") != "os2" || c.nodeAttr("node1", "state") != "free" {
		t.Errorf("after restart: exit %v current_aoe %q state %q", j["Exit_status"], c.nodeAttr("node1", "current_aoe"), c.nodeAttr("node1", "state"))
	}
}

// sshServer is a loopback SSH server running exec requests with sh -c.
func sshServer(t *testing.T, authorized ssh.PublicKey) (addr string, hostKey ssh.PublicKey) {
	_, hpriv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(hpriv)
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) == string(authorized.Marshal()) {
			return nil, nil
		}
		return nil, fmt.Errorf("unknown key")
	}}
	cfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSSH(conn, cfg)
		}
	}()
	return ln.Addr().String(), signer.PublicKey()
}

func serveSSH(conn net.Conn, cfg *ssh.ServerConfig) {
	_, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		conn.Close()
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go func() {
			defer ch.Close()
			for req := range creqs {
				if req.Type != "exec" {
					req.Reply(false, nil)
					continue
				}
				var p struct{ Cmd string }
				ssh.Unmarshal(req.Payload, &p)
				req.Reply(true, nil)
				cmd := exec.Command("sh", "-c", p.Cmd)
				stdin, _ := cmd.StdinPipe()
				cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
				cmd.Start()
				go func() { io.Copy(stdin, ch); stdin.Close() }()
				code := 0
				if err := cmd.Wait(); err != nil {
					if ee, ok := err.(*exec.ExitError); ok {
						code = ee.ExitCode()
					}
				}
				ch.SendRequest("exit-status", false, ssh.Marshal(struct{ C uint32 }{uint32(code)}))
				return
			}
		}()
	}
}

func TestProvisionOverSSH(t *testing.T) {
	dir := t.TempDir()
	cpub, cpriv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(cpriv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "id")
	os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600)
	sshPub, _ := ssh.NewPublicKey(cpub)
	addr, hostKey := sshServer(t, sshPub)
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostKey)+"\n"), 0o644)
	marker := filepath.Join(dir, "ran")
	c := startProvCluster(t, 1, fmt.Sprintf("[provision_ssh]\nkey_file = %q\nknown_hosts = %q\nuser = %q\n[provision_ssh.addresses]\nnode1 = %q\n",
		keyFile, kh, "root", addr))
	c.provHook(fmt.Sprintf(`echo "$STRATA_HOOK_VNODE $STRATA_HOOK_AOE" > %s; exit 1`, marker), "provision_mode = ssh", "alarm = 20")
	c.provNode("node1", "app1")
	id := c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app1")
	c.waitState(id, 20*time.Second, "F")
	if b, _ := os.ReadFile(marker); strings.TrimSpace(string(b)) != "node1 app1" {
		t.Errorf("hook over ssh wrote %q", b)
	}
	// A host key that does not match known_hosts: provisioning cannot start.
	os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, sshPub)+"\n"), 0o644)
	c.must("qmgr", "-c", `set node node1 resources_available.aoe = "app1,app2"`)
	id = c.submit("true\n", "-l", "select=1:ncpus=1:aoe=app2")
	j := c.waitState(id, 20*time.Second, "H")
	if str(j["comment"]) != "job held, provisioning failed to start" {
		t.Errorf("bad host key: %v", j["comment"])
	}
}
