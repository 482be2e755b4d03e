//go:build e2e

package main

// Reservation ACLs (docs/reservations.md): -U, -G and -H become the
// reservation queue's acl_users, acl_groups and acl_hosts, enforced at
// qsub -q R<n> and at qmove into the queue. The attacks are run as
// another user (nobody, group nogroup).

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestResvGroupAndHostACLs(t *testing.T) {
	c := startCluster(t, 1, 2)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	n := 0
	rsubQueue := func(args ...string) (string, string) {
		t.Helper()
		n++ // one window each: the cluster has room for two at a time
		start := later.Add(time.Duration(n) * time.Hour)
		id, state := c.rsub(append([]string{"-I", "20", "-R", at(start), "-D", "60", "-l", "select=1:ncpus=1"}, args...)...)
		if state != "CONFIRMED" {
			t.Fatalf("pbs_rsub %v: %s", args, state)
		}
		return id, strings.TrimSuffix(id, ".e2e")
	}
	qsubAsNobody := func(queue string) result {
		return c.runAs(nobody, "true\n", "qsub", "-q", queue)
	}

	// -G: nobody is an authorized user but not in an authorized group.
	id, rootOnly := rsubQueue("-U", "nobody", "-G", "root")
	if g := c.resvAttr(id, "Authorized_Groups"); g != "root" {
		t.Errorf("Authorized_Groups = %q", g)
	}
	if r := qsubAsNobody(rootOnly); r.code == 0 || !strings.Contains(r.stderr, "Access to queue is denied") {
		t.Errorf("qsub into a group-restricted reservation from another group: %+v", r)
	}
	c.submit("true\n", "-q", rootOnly) // the owner, group root
	// qmove of nobody's job into it is refused as well.
	r := c.runAs(nobody, "true\n", "qsub", "-h", "-q", "workq") // held: it stays queued
	if r.code != 0 {
		t.Fatalf("qsub as nobody into workq: %+v", r)
	}
	job := strings.TrimSpace(r.stdout)
	if r := c.run("qmove", rootOnly, job); r.code == 0 || !strings.Contains(r.stderr, "Access to queue is denied") {
		t.Errorf("qmove of another group's job into the reservation: %+v", r)
	}
	if r := c.runAs(nobody, "", "qmove", rootOnly, job); r.code == 0 {
		t.Errorf("qmove by nobody into the reservation: %+v", r)
	}
	// pbs_ralter -G opens it to nogroup.
	if r := c.ralter("-G", "root,nogroup", id); r.code != 0 {
		t.Fatalf("pbs_ralter -G: %+v", r)
	}
	if r := qsubAsNobody(rootOnly); r.code != 0 {
		t.Errorf("qsub after pbs_ralter -G added the group: %+v", r)
	}
	if r := c.run("qmove", rootOnly, job); r.code != 0 {
		t.Errorf("qmove after pbs_ralter -G added the group: %+v", r)
	}

	// -H: only the named hosts may submit into it, whoever the user.
	_, elsewhere := rsubQueue("-U", "nobody", "-H", "login9.example.org")
	if r := qsubAsNobody(elsewhere); r.code == 0 || !strings.Contains(r.stderr, "Access from host not allowed, or unknown host") {
		t.Errorf("qsub from a host not in -H: %+v", r)
	}
	if r := c.runWithInput("true\n", "qsub", "-q", elsewhere); r.code == 0 {
		t.Errorf("the owner submitted from a host not in -H: %+v", r)
	}
	_, here := rsubQueue("-U", "nobody", "-H", "-login9.example.org,"+host)
	if r := qsubAsNobody(here); r.code != 0 {
		t.Errorf("qsub from a host in -H: %+v", r)
	}
	// Bad entries are refused.
	if r := c.run("pbs_rsub", "-R", at(later), "-D", "60", "-G", "a b"); r.code == 0 || !strings.Contains(r.stderr, "Authorized_Groups") {
		t.Errorf("pbs_rsub -G with a space: %+v", r)
	}
}
