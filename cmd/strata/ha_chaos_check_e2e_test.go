//go:build e2e

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chaosFigures are what chaosCheck found.
type chaosFigures struct {
	jobs, aoeJobs, provisions                 int
	lost, double, concurrent                  int
	maxCPUs, oversubscribed, badImage         int
	acctRecords, servers, acctDiffs, exitless int
}

// chaosRun is one line a job script wrote.
type chaosRun struct {
	id, host    string
	cpus        int
	start, end  int64
	image, want string
}

// vnodeCPUs is what each local agent offers (newHACluster(..., 4)).
const vnodeCPUs = 4

// chaosCheck waits for every job to finish, then checks the promises of
// docs/ha.md against the jobs' own records, the agents' image markers and
// the servers' accounting files.
func chaosCheck(t *testing.T, c *cluster, printed []string, ranLog string) chaosFigures {
	t.Helper()
	var f chaosFigures
	var doc struct {
		Jobs map[string]map[string]any `json:"Jobs"`
	}
	waitFor(t, 240*time.Second, "every job to finish", func() bool {
		r := c.run("qstat", "-x", "-f", "-F", "json")
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
			return false
		}
		for _, j := range doc.Jobs {
			if j["job_state"] != "F" {
				return false
			}
		}
		return true
	})
	f.jobs = len(doc.Jobs)

	// Every id qsub printed exists exactly once.
	seen := map[string]int{}
	for _, id := range printed {
		seen[id]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("qsub printed %s %d times", id, n)
		}
		if doc.Jobs[id] == nil {
			f.lost++
			t.Errorf("acknowledged job %s is lost", id)
		}
	}

	// The jobs' own records: each ran once, never two runs at once.
	b, _ := os.ReadFile(ranLog)
	var runs []chaosRun
	byJob := map[string][]chaosRun{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fl := strings.Fields(l)
		if len(fl) < 6 {
			continue
		}
		r := chaosRun{id: fl[0], host: fl[1], image: fl[5]}
		r.cpus, _ = strconv.Atoi(fl[2])
		r.start, _ = strconv.ParseInt(fl[3], 10, 64)
		r.end, _ = strconv.ParseInt(fl[4], 10, 64)
		if len(fl) > 6 {
			r.want = fl[6]
		}
		runs = append(runs, r)
		byJob[r.id] = append(byJob[r.id], r)
	}
	for id, j := range doc.Jobs {
		rs := byJob[id]
		switch {
		case len(rs) == 0:
			t.Errorf("job %s finished (Exit_status %v) without running", id, j["Exit_status"])
		case len(rs) > 1:
			f.double++
			t.Errorf("job %s ran %d times: %+v; run_count %v; accounting: %s", id, len(rs), rs, j["run_count"], acctOf(c, id))
			for a := range rs {
				for b := a + 1; b < len(rs); b++ {
					if rs[a].start < rs[b].end && rs[b].start < rs[a].end {
						f.concurrent++
						t.Errorf("job %s ran twice at the same time: %+v and %+v", id, rs[a], rs[b])
					}
				}
			}
		}
		// Exactly one exit status, and the one the job had.
		if str(j["Exit_status"]) != "0" {
			f.exitless++
			t.Errorf("job %s: Exit_status %v, want 0", id, j["Exit_status"])
		}
	}

	// No vnode ever held more cpus than it has: at every start of a run,
	// the runs in progress on its host add up to at most vnodeCPUs. The
	// scripts' intervals lie inside the real allocations, so this can only
	// under-count, never invent, an oversubscription.
	byHost := map[string][]chaosRun{}
	for _, r := range runs {
		byHost[r.host] = append(byHost[r.host], r)
	}
	for host, rs := range byHost {
		for _, at := range rs {
			used := 0
			for _, r := range rs {
				if r.start <= at.start && at.start < r.end {
					used += r.cpus
				}
			}
			f.maxCPUs = max(f.maxCPUs, used)
			if used > vnodeCPUs {
				f.oversubscribed++
				t.Errorf("%s held %d cpus (of %d) when %s started", host, used, vnodeCPUs, at.id)
			}
		}
	}

	// Provisioning: a job that asked for an AOE started on a host whose
	// image marker (written by the hook, confirmed by the agent's
	// re-registration) already was that AOE.
	for _, r := range runs {
		if r.want == "" {
			continue
		}
		f.aoeJobs++
		if r.image != r.want {
			f.badImage++
			t.Errorf("job %s asked for %s but started on %s with image %s", r.id, r.want, r.host, r.image)
		}
	}
	// No vnode left offline or provisioning; each is on an AOE it offers.
	for _, n := range []string{"node1", "node2"} {
		waitFor(t, 30*time.Second, n+" free", func() bool { return c.nodeAttr(n, "state") == "free" })
		if a := c.nodeAttr(n, "current_aoe"); a != "" && a != "os1" && a != "os2" {
			t.Errorf("%s: current_aoe %q", n, a)
		}
	}

	// The accounting log: each server writes every record once, and all
	// servers write the same records.
	f.acctRecords, f.servers, f.acctDiffs, f.provisions = chaosAccounting(t, c, doc.Jobs)
	return f
}

// chaosAccounting compares the servers' accounting files: no record twice
// in one file, the same records in every file, one E record (with the
// job's exit status) per finished job, and a P record per provisioning.
func chaosAccounting(t *testing.T, c *cluster, jobs map[string]map[string]any) (records, servers, diffs, provisions int) {
	t.Helper()
	read := func(server string) []string {
		files, _ := filepath.Glob(filepath.Join(c.dir, server, "data", "accounting", "[0-9]*"))
		sort.Strings(files)
		var lines []string
		for _, f := range files {
			b, _ := os.ReadFile(f)
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if l != "" {
					lines = append(lines, l)
				}
			}
		}
		return lines
	}
	var names []string
	for _, p := range c.status() {
		if p.Role == "server" {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	// Servers write on their own schedule (and a restarted one catches
	// up): wait until the files agree and hold the end of every finished
	// job (the last ones may end just before this reads), then judge them.
	var logs map[string][]string
	pollFor(60*time.Second, func() bool {
		logs = map[string][]string{}
		for _, n := range names {
			logs[n] = read(n)
		}
		for _, n := range names[1:] {
			if len(logs[n]) != len(logs[names[0]]) {
				return false
			}
		}
		ended := map[string]bool{}
		for _, l := range logs[names[0]] {
			if parts := strings.SplitN(l, ";", 4); len(parts) == 4 && parts[1] == "E" {
				ended[parts[2]] = true
			}
		}
		for id := range jobs {
			if !ended[id] {
				return false
			}
		}
		return true
	})
	ref := map[string]bool{}
	for _, l := range logs[names[0]] {
		ref[l] = true
	}
	for _, n := range names {
		count := map[string]int{}
		ends := map[string]int{}
		for _, l := range logs[n] {
			count[l]++
			if count[l] == 2 {
				diffs++
				t.Errorf("%s wrote an accounting record twice: %s", n, l)
			}
			if !ref[l] {
				diffs++
				t.Errorf("%s has an accounting record %s does not: %s", n, names[0], l)
			}
			parts := strings.SplitN(l, ";", 4)
			if len(parts) == 4 && parts[1] == "E" {
				ends[parts[2]]++
				if !strings.Contains(parts[3], "Exit_status=0") {
					t.Errorf("%s: E record of %s without Exit_status=0: %s", n, parts[2], l)
				}
			}
			if len(parts) == 4 && parts[1] == "P" && strings.Contains(parts[3], "provision_event=START") && n == names[0] {
				provisions++
			}
		}
		if len(count) != len(ref) {
			diffs++
			t.Errorf("%s has %d distinct accounting records, %s %d", n, len(count), names[0], len(ref))
		}
		for id := range jobs {
			if ends[id] != 1 {
				t.Errorf("%s: %d E records for %s, want 1", n, ends[id], id)
			}
		}
	}
	return len(logs[names[0]]), len(names), diffs, provisions
}

// acctOf is server1's accounting records of one job, for messages.
func acctOf(c *cluster, id string) string {
	files, _ := filepath.Glob(filepath.Join(c.dir, "server1", "data", "accounting", "[0-9]*"))
	var out []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, ";"+id+";") {
				out = append(out, l)
			}
		}
	}
	return strings.Join(out, " | ")
}
