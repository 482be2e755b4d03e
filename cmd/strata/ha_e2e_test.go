//go:build e2e

package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHAFailover: three servers; jobs submitted through a follower and the
// leader; the leader is SIGKILLed; a new leader is elected, every
// acknowledged job still exists exactly once, qsub works against the
// survivors, and every job runs exactly once.
func TestHAFailover(t *testing.T) {
	c := newHACluster(t, 3, 2, 2)
	procs := c.status()
	servers := 0
	for _, p := range procs {
		if p.Pid == 0 {
			t.Fatalf("status: %s has no pid: %+v", p.Name, p)
		}
		if p.Role == "server" {
			servers++
			if p.Raft != "leader" && p.Raft != "follower" {
				t.Fatalf("status: server %s raft=%q", p.Name, p.Raft)
			}
		}
	}
	if servers != 3 {
		t.Fatalf("status lists %d servers, want 3", servers)
	}
	lead := c.leader(10 * time.Second)
	var follower haProc
	for _, p := range procs {
		if p.Role == "server" && p.Name != lead.Name {
			follower = p
			break
		}
	}

	ranLog := filepath.Join(c.work, "ran.log")
	script := fmt.Sprintf("#!/bin/sh\necho \"$PBS_JOBID\" >> %s\nsleep 2\n", ranLog)
	// Through a follower: the write is forwarded, and the same client's
	// next read on that follower sees it (read-your-writes).
	viaFollower := *c
	viaFollower.env = append(append([]string(nil), c.env...), "STRATA_SOCKET="+sockOf(follower))
	var ids []string
	for i := 0; i < 3; i++ {
		id := viaFollower.submit(script)
		ids = append(ids, id)
		if r := viaFollower.run("qstat", id); r.code != 0 {
			t.Fatalf("qstat %s on the follower right after its qsub: exit %d %s (read-your-writes)", id, r.code, r.stderr)
		}
	}
	if out := viaFollower.must("qstat", "-B"); !strings.Contains(out, "Leader: "+lead.Name) {
		t.Fatalf("qstat -B on a follower does not name leader %s:\n%s", lead.Name, out)
	}
	for i := 0; i < 5; i++ {
		ids = append(ids, c.submit(script))
	}

	c.kill9(lead.Name)
	killed := time.Now()
	// The first qsub after the kill: it goes to whichever survivor
	// answers and waits out the election (qsub retries with its token).
	var first string
	waitFor(t, 20*time.Second, "a qsub to succeed after the leader's death", func() bool {
		f, _ := os.CreateTemp(c.work, "job*.sh")
		f.WriteString(script)
		f.Close()
		r := c.run("qsub", f.Name())
		first = strings.TrimSpace(r.stdout)
		return r.code == 0
	})
	t.Logf("leader %s killed; first qsub succeeded %s later (%s)", lead.Name, time.Since(killed).Round(time.Millisecond), first)
	ids = append(ids, first)
	newLead := c.leader(10 * time.Second)
	if newLead.Name == lead.Name {
		t.Fatalf("the killed server %s still reported as leader", lead.Name)
	}
	for _, p := range c.status() {
		if p.Name == lead.Name && (p.Raft != "down" || p.Pid != 0) {
			t.Fatalf("killed server in status: %+v, want raft down and no pid", p)
		}
	}

	// Every acknowledged id exists, and no retry created a second job.
	for _, id := range ids {
		c.waitState(id, 90*time.Second, "F")
	}
	r := c.must("qstat", "-x", "-f", "-F", "json")
	var doc struct {
		Jobs map[string]map[string]any `json:"Jobs"`
	}
	if err := json.Unmarshal([]byte(r), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Jobs) != len(ids) {
		t.Fatalf("%d jobs exist, %d were acknowledged: %v", len(doc.Jobs), len(ids), ids)
	}
	// Every job ran exactly once: each script recorded its start.
	b, err := os.ReadFile(ranLog)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		runs[l]++
	}
	for _, id := range ids {
		j := doc.Jobs[id]
		if j == nil {
			t.Fatalf("acknowledged job %s is lost", id)
		}
		if runs[id] != 1 || str(j["Exit_status"]) != "0" {
			t.Fatalf("job %s ran %d times, Exit_status %v (want once, 0)", id, runs[id], j["Exit_status"])
		}
	}
}

// TestHAForwardHeaderRefused performs the attack on forwarding: a caller
// that is not a server of the cluster (an agent's certificate, or no
// certificate at all) sends the header a follower uses to speak for a user,
// claiming to be root. The leader must refuse it; only a server-role
// certificate may carry the header.
func TestHAForwardHeaderRefused(t *testing.T) {
	c := newHACluster(t, 3, 1, 1)
	lead := c.leader(10 * time.Second)
	td := filepath.Join(c.dir, "tls")
	pool := x509.NewCertPool()
	ca, err := os.ReadFile(filepath.Join(td, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool.AppendCertsFromPEM(ca)
	client := func(cert, key string) *http.Client {
		conf := &tls.Config{RootCAs: pool, ServerName: "server.strata"}
		if cert != "" {
			kp, err := tls.LoadX509KeyPair(filepath.Join(td, cert), filepath.Join(td, key))
			if err != nil {
				t.Fatal(err)
			}
			conf.Certificates = []tls.Certificate{kp}
		}
		return &http.Client{Transport: &http.Transport{TLSClientConfig: conf}, Timeout: 10 * time.Second}
	}
	claim := `{"User":"root","UID":0,"GID":0,"Group":"root","Host":"localhost"}`
	body := `{"script":"#!/bin/sh\nid > /tmp/pwned\n","token":"attack"}`
	send := func(hc *http.Client) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, "https://"+apiOf(lead)+"/v1/jobs", bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Strata-On-Behalf-Of", claim)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("request: %v", err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	for name, hc := range map[string]*http.Client{
		"agent certificate": client("agent-node1.pem", "agent-node1-key.pem"),
		"no certificate":    client("", ""),
	} {
		code, out := send(hc)
		if code != http.StatusForbidden || !strings.Contains(out, "only a server of the cluster may forward") {
			t.Fatalf("%s with the forwarding header: HTTP %d %s; want 403 refusing the forwarded identity", name, code, out)
		}
	}
	if r := c.run("qstat", "-x"); strings.Contains(r.stdout, "STDIN") || strings.Contains(r.stdout, "root") {
		t.Fatalf("a job was created by the attack:\n%s", r.stdout)
	}
	// Control: the same header from a server certificate is believed (that
	// is how followers forward), so the refusals above are the header check.
	req, _ := http.NewRequest(http.MethodGet, "https://"+apiOf(lead)+"/v1/server", nil)
	req.Header.Set("X-Strata-On-Behalf-Of", `{"User":"nobody","UID":65534,"GID":65534,"Host":"localhost"}`)
	resp, err := client("server-server2.pem", "server-server2-key.pem").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("server certificate with the header: HTTP %d, want 200", resp.StatusCode)
	}
}
