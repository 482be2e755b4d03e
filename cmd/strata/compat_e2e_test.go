//go:build e2e

package main

// The compatibility suite (issue 3, "Tests"): every PBS command runs
// against a real local cluster and its output is compared byte for byte
// with golden files made from real server output. Regenerate them with
//
//	go test -tags e2e ./cmd/strata -run Compat -update
//
// Real output holds volatile data (dates, session ids, the host name, temp
// paths, the release). normalize replaces it with fixed tokens; inside
// tables and dates the token has the same width as what it replaces, so the
// column layout is still checked byte for byte. A `-f` attribute whose
// value holds a temp path or the host name is unfolded before the
// replacement (the fold points depend on their lengths); every other
// attribute keeps its real folding.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

var update = flag.Bool("update", false, "rewrite the golden files of the compatibility suite from real output")

var nobody = &syscall.Credential{Uid: 65534, Gid: 65534}

// startCompatCluster starts a cluster like startCluster, with serverTOML
// appended to the server's configuration and a fixed, minimal environment
// for the commands (so that Variable_List is the same on every machine
// except for the work directory and the host name, which normalize
// handles).
func startCompatCluster(t *testing.T, moms, ncpus int, serverTOML string) *cluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the compatibility suite runs commands as other users and needs root")
	}
	c := newCluster(t, moms, ncpus, serverTOML)
	c.env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=/home/compat",
		"LANG=C.UTF-8",
		"SHELL=/bin/sh",
		"STRATA_SOCKET=" + filepath.Join(c.dir, "server1", "strata.sock"),
		"PBS_SERVER=e2e",
	}
	return c
}

// volatile is what normalize replaces.
type volatile struct {
	work string // the work directory (PBS_O_WORKDIR, output paths)
	host string // this host's name (Job_Owner, Submit_Host, PBS_O_HOST)
}

var (
	reCtime    = regexp.MustCompile(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4}\b`)
	reRunAt    = regexp.MustCompile(`\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{2} at [0-9]{2}:[0-9]{2}\b`)
	reLogDate  = regexp.MustCompile(`(?m)^[0-9]{2}/[0-9]{2}/[0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2}`)
	reSession  = regexp.MustCompile(`(session_id = |session_id=|"session_id":\t|session )[0-9]+`)
	reUsedMem  = regexp.MustCompile(`(resources_used\.v?mem = |resources_used\.v?mem=)[0-9]+kb`)
	reUsedTime = regexp.MustCompile(`(resources_used\.(?:cput|walltime) = |resources_used\.(?:cput|walltime)=)[0-9]{2}:[0-9]{2}:[0-9]{2}`)
	// Usage in -F json: values only ever in kb are usage; times are
	// masked wherever they are (Resource_List.walltime too).
	reUsedJSONMem  = regexp.MustCompile(`("v?mem":\t")[0-9]+kb"`)
	reUsedJSONTime = regexp.MustCompile(`("(?:cput|walltime)":\t")[0-9]{2}:[0-9]{2}:[0-9]{2}"`)
	reEpoch        = regexp.MustCompile(`("(?:timestamp|last_state_change_time|last_used_time)":\t)[0-9]+`)
	reAltRow       = regexp.MustCompile(`^[0-9]+(\[[0-9]*\])?\.`)
	reClock        = regexp.MustCompile(`^[0-9]{2}:[0-9]{2}$`)
	reDigits       = regexp.MustCompile(`^ *[0-9]+$`)
	reConnectErr   = regexp.MustCompile(`errno=[0-9]+`)
)

// normalize makes real output comparable across runs and machines.
func normalize(out string, v volatile) string {
	out = unfoldVolatile(out, v)
	out = strings.ReplaceAll(out, v.work, "<workdir>")
	if v.host != "" {
		h := regexp.QuoteMeta(v.host)
		out = regexp.MustCompile(`(@|=|= |"|\t)`+h+`\b`).ReplaceAllString(out, "${1}<host>")
		out = regexp.MustCompile(`\b`+h+`:/`).ReplaceAllString(out, "<host>:/")
	}
	out = strings.ReplaceAll(out, api.PBSVersion, "<pbs_version>")
	out = reCtime.ReplaceAllString(out, "Www Mmm dd hh:mm:ss YYYY")
	out = reRunAt.ReplaceAllString(out, "Www Mmm dd at hh:mm")
	out = reLogDate.ReplaceAllString(out, "MM/DD/YYYY hh:mm:ss")
	out = reSession.ReplaceAllString(out, "${1}<sid>")
	out = reUsedMem.ReplaceAllString(out, "${1}<n>kb")
	out = reUsedTime.ReplaceAllString(out, "${1}hh:mm:ss")
	out = reEpoch.ReplaceAllString(out, "${1}<epoch>")
	out = reUsedJSONMem.ReplaceAllString(out, `${1}<n>kb"`)
	out = reUsedJSONTime.ReplaceAllString(out, `${1}hh:mm:ss"`)
	return normalizeAltRows(out)
}

// normalizeAltRows masks the session id and the elapsed time in the
// alternate (-a) rows by column, keeping their widths.
func normalizeAltRows(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !reAltRow.MatchString(l) || len(l) < 80 || l[15] != ' ' || l[72] != ' ' || l[74] != ' ' {
			continue
		}
		b := []byte(l)
		if reDigits.MatchString(l[45:51]) {
			copy(b[45:51], "  PPPP")
		}
		if reClock.MatchString(l[75:80]) {
			copy(b[75:80], "hh:mm")
		}
		lines[i] = string(b)
	}
	return strings.Join(lines, "\n")
}

// unfoldVolatile joins the continuation lines (TAB) of a -f attribute back
// into one line when the value holds the work directory or the host name.
func unfoldVolatile(out string, v volatile) string {
	lines := strings.Split(out, "\n")
	var res []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "\t") {
			j++
		}
		if j == i+1 || !strings.HasPrefix(l, "    ") || !strings.Contains(l, " = ") {
			res = append(res, lines[i:j]...)
			continue
		}
		joined := l
		for _, c := range lines[i+1 : j] {
			joined += c[1:]
		}
		if strings.Contains(joined, v.work) || (v.host != "" && strings.Contains(joined, v.host)) {
			res = append(res, joined)
		} else {
			res = append(res, lines[i:j]...)
		}
		i = j - 1
	}
	return strings.Join(res, "\n")
}

// checkGolden compares got with testdata/golden/<name>.txt, or writes it
// with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".txt")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file %s\n--- got ---\n%s--- want ---\n%s--- first difference ---\n%s",
			name, path, got, want, firstDiff(got, string(want)))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, x, y)
		}
	}
	return "(none)"
}

func shortHostname(t *testing.T) string {
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestCompatLayouts drives a fixed scenario and checks every layout.
func TestCompatLayouts(t *testing.T) {
	c := startCompatCluster(t, 2, 2, `
[[queue]]
name = "workq"
enabled = true
started = true

[[queue]]
name = "closedq"
enabled = false
started = false
`)
	v := volatile{work: c.work, host: shortHostname(t)}

	// The scenario: job ids are fixed because the cluster is new and
	// each step waits for the job to settle before the next one.
	var qsubOut strings.Builder
	sub := func(cred *syscall.Credential, args ...string) string {
		t.Helper()
		r := c.runAs(cred, "", "qsub", args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("qsub %v: exit %d: %s", args, r.code, r.stderr)
		}
		qsubOut.WriteString(r.stdout)
		return strings.TrimSpace(r.stdout)
	}
	// node2 is offline from the start, so every job lands on node1 and
	// the scheduler's comments are the same on every run.
	c.must("pbsnodes", "-o", "-C", "disk replaced", "node2")
	runner := sub(nil, "-N", "runner", "-l", "select=1:ncpus=1", "-l", "walltime=00:10:00", "--", "/bin/sleep", "1000")
	waitFor(t, 30*time.Second, "runner to run", func() bool { return str(c.job(runner)["substate"]) == "42" })
	// The first usage report (usage_interval, 10 s) changes what qstat
	// shows of the runner; take the layouts after it, whatever the load.
	waitFor(t, 60*time.Second, "runner's first usage report", func() bool {
		ru, _ := c.job(runner)["resources_used"].(map[string]any)
		return ru["walltime"] != nil
	})
	quick := sub(nil, "-N", "quick", "--", "/bin/true")
	c.waitState(quick, 30*time.Second, "F")
	held := sub(nil, "-N", "held_job_with_long_name", "-h", "-l", "select=1:ncpus=1:mem=512mb", "--", "/bin/true")
	c.waitState(held, 10*time.Second, "H")
	later := sub(nil, "-N", "later", "-a", "203001010000", "-l", "walltime=01:30:00", "--", "/bin/true")
	c.waitState(later, 10*time.Second, "W")
	toobig := sub(nil, "-N", "toobig", "-l", "select=1:ncpus=3", "--", "/bin/true")
	waitFor(t, 30*time.Second, "the scheduler's comment on toobig", func() bool { return str(c.job(toobig)["comment"]) != "" })
	other := sub(nobody, "-N", "nobodys", "-h", "-p", "10", "--", "/bin/true")
	c.waitState(other, 10*time.Second, "H")
	checkGolden(t, "qsub", qsubOut.String())

	jobs := []string{runner, held}
	cases := []struct {
		name string
		cmd  string
		args []string
	}{
		{"qstat_default", "qstat", nil},
		{"qstat_w", "qstat", []string{"-w"}},
		{"qstat_a", "qstat", []string{"-a"}},
		{"qstat_a_n_1", "qstat", []string{"-a", "-n", "-1"}},
		{"qstat_a_n", "qstat", []string{"-a", "-n"}},
		{"qstat_s", "qstat", []string{"-s"}},
		{"qstat_f", "qstat", append([]string{"-f"}, jobs...)},
		{"qstat_f_x", "qstat", []string{"-x", "-f", quick}},
		{"qstat_f_json", "qstat", append([]string{"-f", "-F", "json"}, jobs...)},
		{"qstat_f_dsv", "qstat", append([]string{"-f", "-F", "dsv"}, jobs...)},
		{"qstat_x", "qstat", []string{"-x"}},
		{"qstat_H", "qstat", []string{"-H"}},
		{"qstat_Q", "qstat", []string{"-Q"}},
		{"qstat_Qf", "qstat", []string{"-Qf"}},
		{"qstat_q", "qstat", []string{"-q"}},
		{"qstat_B", "qstat", []string{"-B"}},
		{"qstat_Bf", "qstat", []string{"-Bf"}},
		{"qstat_i", "qstat", []string{"-i"}},
		{"qstat_r", "qstat", []string{"-r"}},
		{"qstat_u", "qstat", []string{"-u", "nobody"}},
		{"qstat_dest_queue", "qstat", []string{"workq"}},
		{"qstat_dest_server", "qstat", []string{"-a", "@e2e"}},
		{"qstat_job", "qstat", []string{strings.TrimSuffix(held, ".e2e")}},
		{"pbsnodes_a", "pbsnodes", []string{"-a"}},
		{"pbsnodes_av", "pbsnodes", []string{"-av"}},
		{"pbsnodes_aS", "pbsnodes", []string{"-aS"}},
		{"pbsnodes_aSj", "pbsnodes", []string{"-aSj"}},
		{"pbsnodes_l", "pbsnodes", []string{"-l"}},
		{"pbsnodes_json", "pbsnodes", []string{"-F", "json", "-a"}},
		{"pbsnodes_host", "pbsnodes", []string{"node1"}},
		{"qselect", "qselect", nil},
		{"qselect_s_H", "qselect", []string{"-s", "H"}},
		{"qselect_u", "qselect", []string{"-u", "nobody"}},
		{"qselect_q", "qselect", []string{"-q", "workq", "-s", "Q"}},
		{"tracejob", "tracejob", []string{quick}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.run(tc.cmd, tc.args...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%s %v: exit %d, stderr %q", tc.cmd, tc.args, r.code, r.stderr)
			}
			checkGolden(t, tc.name, normalize(r.stdout, v))
		})
	}

	t.Run("versions", func(t *testing.T) {
		var all strings.Builder
		for _, cmd := range []string{"qsub", "qstat", "qdel", "qhold", "qrls", "qalter", "qsig", "qselect", "qmove", "qrerun", "qrun", "tracejob", "pbsnodes"} {
			r := c.run(cmd, "--version")
			if r.code != 0 || r.stderr != "" || r.stdout != "pbs_version = "+api.PBSVersion+"\n" {
				t.Errorf("%s --version: exit %d stdout %q stderr %q", cmd, r.code, r.stdout, r.stderr)
			}
			all.WriteString(r.stdout)
		}
		checkGolden(t, "versions", normalize(all.String(), v))
	})

	// No jobs to show: nothing at all, exit 0.
	t.Run("qstat_empty", func(t *testing.T) {
		for _, args := range [][]string{{"-u", "daemon"}, {"-a", "-u", "daemon"}, {"-r", "-u", "nobody"}, {"-i", "-u", "daemon"}, {"workq@e2e", "-u", "daemon"}} {
			if r := c.run("qstat", args...); r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Errorf("qstat %v with nothing to show: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
			}
		}
	})
}

// errCase is one row of the reference's error table (§14): a real command
// that triggers it, and the exact stderr and exit status it must give.
type errCase struct {
	name   string
	cred   *syscall.Credential
	cmd    string
	args   []string
	stdin  string
	stderr string // exact, or a prefix when prefix is set
	prefix bool
	code   int
	skip   string
}

func (e errCase) check(t *testing.T, c *cluster) {
	t.Helper()
	if e.skip != "" {
		t.Skip(e.skip)
	}
	r := c.runAs(e.cred, e.stdin, e.cmd, e.args...)
	got := reConnectErr.ReplaceAllString(r.stderr, "errno=N")
	ok := got == e.stderr
	if e.prefix {
		ok = strings.HasPrefix(got, e.stderr)
	}
	if !ok || r.code != e.code || r.stdout != "" {
		t.Errorf("%s %v:\n got exit %d stderr %q stdout %q\nwant exit %d stderr %q", e.cmd, e.args, r.code, got, r.stdout, e.code, e.stderr)
	}
}

// TestCompatErrorTable triggers every error of the reference's table, and
// the client-side errors listed below it, through the real commands.
func TestCompatErrorTable(t *testing.T) {
	c := startCompatCluster(t, 1, 2, `
[[queue]]
name = "workq"
enabled = true
started = true

[[queue]]
name = "closedq"
enabled = false
started = true

# Only nobody may submit here.
[[queue]]
name = "aclq"
enabled = true
started = true
acl_user_enable = true
acl_users = ["nobody"]

[[queue]]
name = "smallq"
enabled = true
started = true
resources_max = { ncpus = "1" }

# Stopped, so their jobs stay queued and count against max_queued.
[[queue]]
name = "fullq"
enabled = true
started = false
max_queued = "[o:PBS_ALL=1]"

[[queue]]
name = "userq"
enabled = true
started = false
max_queued = "[u:PBS_GENERIC=1]"
`)
	running := strings.TrimSpace(c.must("qsub", "-N", "running", "--", "/bin/sleep", "1000"))
	waitFor(t, 30*time.Second, "the job to run", func() bool { return str(c.job(running)["substate"]) == "42" })
	held := strings.TrimSpace(c.must("qsub", "-h", "--", "/bin/true"))
	done := strings.TrimSpace(c.must("qsub", "--", "/bin/true"))
	c.waitState(done, 30*time.Second, "F")
	queued := strings.TrimSpace(c.must("qsub", "-l", "select=1:ncpus=3", "--", "/bin/true"))

	// One job in each limited queue: the next one is over the limit.
	c.must("qsub", "-q", "fullq", "--", "/bin/true")
	c.must("qsub", "-q", "userq", "--", "/bin/true")

	big := filepath.Join(c.work, "big.sh")
	if err := os.WriteFile(big, []byte("#!/bin/sh\n"+strings.Repeat("# padding padding padding padding\n", 17<<20/34+1)), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []errCase{
		{name: "153_unknown_job_qstat", cmd: "qstat", args: []string{"999999"},
			stderr: "qstat: Unknown Job Id 999999.e2e\n", code: 153},
		{name: "153_unknown_job_qdel", cmd: "qdel", args: []string{"999999.e2e"},
			stderr: "qdel: Unknown Job Id 999999.e2e\n", code: 153},
		{name: "154_undefined_attribute", cmd: "qalter", args: []string{"-W", "bogus_attr=1", held},
			stderr: "qalter: Undefined attribute  bogus_attr " + held + "\n", code: 154},
		{name: "155_read_only_attribute", cmd: "qalter", args: []string{"-W", "job_state=R", held},
			stderr: "qalter: Cannot set attribute, read only or insufficient permission  job_state " + held + "\n", code: 155},
		{name: "156_invalid_request", cmd: "qsub", args: []string{big},
			stderr: "qsub: Invalid request", prefix: true, code: 156},
		{name: "159_unauthorized_qdel", cred: nobody, cmd: "qdel", args: []string{held},
			stderr: "qdel: Unauthorized Request  " + held + "\n", code: 159},
		{name: "159_unauthorized_qsig_suspend", cred: nobody, cmd: "qsig", args: []string{"-s", "suspend", running},
			stderr: "qsig: Unauthorized Request  " + running + "\n", code: 159},
		{name: "166_illegal_value", cmd: "qsub", args: []string{"-l", "walltime=abc", "--", "/bin/true"},
			stderr: "qsub: Illegal attribute or resource value Resource_List.walltime\n", code: 166},
		{name: "167_modify_running", cmd: "qalter", args: []string{"-l", "ncpus=2", running},
			stderr: "qalter: Cannot modify attribute while job running  Resource_List.ncpus " + running + "\n", code: 167},
		{name: "168_bad_state", cmd: "qsig", args: []string{held},
			stderr: "qsig: Request invalid for state of job " + held + "\n", code: 168},
		{name: "170_unknown_queue", cmd: "qsub", args: []string{"-q", "nosuch", "--", "/bin/true"},
			stderr: "qsub: Unknown queue\n", code: 170},
		{name: "170_unknown_queue_qmove", cmd: "qmove", args: []string{"nosuch", held},
			stderr: "qmove: Unknown queue " + held + "\n", code: 170},
		{name: "170_unknown_queue_qstat", cmd: "qstat", args: []string{"nosuch"},
			stderr: "qstat: Unknown queue nosuch\n", code: 170},
		{name: "173_queue_not_enabled", cmd: "qsub", args: []string{"-q", "closedq", "--", "/bin/true"},
			stderr: "qsub: Queue is not enabled\n", code: 173},
		{name: "174_queue_access", cmd: "qsub", args: []string{"-q", "aclq", "--", "/bin/true"},
			stderr: "qsub: Access to queue is denied\n", code: 174},
		{name: "187_unknown_resource", cmd: "qsub", args: []string{"-l", "foo=1", "--", "/bin/true"},
			stderr: "qsub: Unknown resource Resource_List.foo\n", code: 187},
		{name: "187_unknown_resource_in_chunk", cmd: "qsub", args: []string{"-l", "select=1:foo=1", "--", "/bin/true"},
			stderr: "qsub: Unknown resource: foo\n", code: 187},
		{name: "188_exceeds_limits", cmd: "qsub", args: []string{"-q", "smallq", "-l", "select=1:ncpus=2", "--", "/bin/true"},
			stderr: "qsub: Job violates queue and/or server resource limits\n", code: 188},
		{name: "206_bad_dependency", cmd: "qsub", args: []string{"-W", "depend=afterok:987654", "--", "/bin/true"},
			stderr: "qsub: Invalid Job Dependency\n", code: 206},
		{name: "214_unknown_node_qrun", cmd: "qrun", args: []string{"-H", "nosuch", queued},
			stderr: "qrun: Unknown node  nosuch " + queued + "\n", code: 214},
		// pbsnodes reports an unknown host with the server text but exits
		// 1, as the reference's pbsnodes section says (§8).
		{name: "214_unknown_node_pbsnodes", cmd: "pbsnodes", args: []string{"nosuch"},
			stderr: "pbsnodes: Unknown node  nosuch\n", code: 1},
		{name: "236_unknown_reservation", cmd: "pbs_rstat", args: []string{"R999999"},
			stderr: "pbs_rstat: Unknown Reservation Id\n", code: 236},
		{name: "236_unknown_reservation_rdel", cmd: "pbs_rdel", args: []string{"R999999.e2e"},
			stderr: "pbs_rdel: Unknown Reservation Id R999999.e2e\n", code: 236},
		{name: "3_array_too_large", cmd: "qsub", args: []string{"-J", "0-10000", "--", "/bin/true"},
			stderr: "qsub: Array job exceeds server or queue size limit\n", code: 3},
		{name: "35_job_finished_qstat", cmd: "qstat", args: []string{done},
			stderr: "qstat: " + done + " Job has finished, use -x or -H to obtain historical job information\n", code: 35},
		{name: "35_job_finished_qdel", cmd: "qdel", args: []string{done},
			stderr: "qdel: Job has finished " + done + "\n", code: 35},
		{name: "38_max_queued", cmd: "qsub", args: []string{"-q", "fullq", "--", "/bin/true"},
			stderr: "qsub: Maximum number of jobs already in queue fullq\n", code: 38},
		{name: "39_max_queued_would_exceed", cmd: "qsub", args: []string{"-q", "userq", "--", "/bin/true"},
			stderr: "qsub: would exceed queue userq's per-user limit\n", code: 39},

		// Errors detected in the client.
		{name: "client_illegal_option_value", cmd: "qsub", args: []string{"-p", "abc", "--", "/bin/true"},
			stderr: "qsub: illegal -p value\nusage: qsub", prefix: true, code: 2},
		{name: "client_usage", cmd: "qdel",
			stderr: "usage: qdel", prefix: true, code: 2},
		{name: "client_usage_pbsnodes", cmd: "pbsnodes",
			stderr: "usage:\n\tpbsnodes", prefix: true, code: 1},
		{name: "client_bad_job_id", cmd: "qdel", args: []string{"x[y"},
			stderr: "qdel: illegally formed job identifier: x[y\n", code: 1},
		{name: "client_bad_job_id_then_unknown", cmd: "qhold", args: []string{"999998", "x[y"},
			stderr: "qhold: Unknown Job Id 999998.e2e\nqhold: illegally formed job identifier: x[y\n", code: 1},
	}
	for _, e := range cases {
		t.Run(e.name, func(t *testing.T) { e.check(t, c) })
	}

	// The PBS_GENERIC limit is per user: nobody has no job in userq yet,
	// and the queue's ACL lets nobody in where root is refused.
	t.Run("limits_are_per_user", func(t *testing.T) {
		for _, q := range []string{"userq", "aclq"} {
			if r := c.runAs(nobody, "", "qsub", "-q", q, "-h", "--", "/bin/true"); r.code != 0 || r.stderr != "" {
				t.Errorf("nobody's qsub -q %s: exit %d stderr %q", q, r.code, r.stderr)
			}
		}
	})

	// Server acl_hosts: with acl_host_enable, a submission from a host
	// that is not listed is refused (every submission comes from the
	// server's host today); listing the host lets it in again.
	t.Run("159_unauthorized_acl_hosts", func(t *testing.T) {
		defer c.must("qmgr", "-c", "unset server acl_host_enable; unset server acl_hosts")
		c.must("qmgr", "-c", "set server acl_hosts = login.example.com, acl_host_enable = true")
		errCase{cmd: "qsub", args: []string{"--", "/bin/true"}, stderr: "qsub: Unauthorized Request \n", code: 159}.check(t, c)
		c.must("qmgr", "-c", "set server acl_hosts += "+shortHostname(t))
		if r := c.run("qsub", "-h", "--", "/bin/true"); r.code != 0 || r.stderr != "" {
			t.Errorf("qsub from a listed host: exit %d stderr %q", r.code, r.stderr)
		}
	})

	t.Run("client_cannot_connect", func(t *testing.T) {
		saved := c.env
		defer func() { c.env = saved }()
		c.env = append(append([]string(nil), saved...), "STRATA_SOCKET="+filepath.Join(c.work, "no.sock"))
		for _, cmd := range []string{"qstat", "qsub"} {
			args := []string{}
			if cmd == "qsub" {
				args = []string{"--", "/bin/true"}
			}
			errCase{cmd: cmd, args: args, stderr: cmd + ": cannot connect to server e2e (errno=N)\n", code: 1}.check(t, c)
		}
	})
}

// TestCompatNoHistoryNoDefaultQueue covers the rows that need a server
// without job history and without a default queue.
func TestCompatNoHistoryNoDefaultQueue(t *testing.T) {
	c := startCompatCluster(t, 1, 1, `
job_history_enable = false
default_queue = ""
`)
	t.Run("0_history_not_configured", func(t *testing.T) {
		for _, args := range [][]string{{"-x"}, {"-H"}} {
			errCase{cmd: "qstat", args: args, stderr: "qstat: PBS is not configured to maintain job history\n", code: 0}.check(t, c)
		}
	})
	t.Run("189_no_default_queue", func(t *testing.T) {
		errCase{cmd: "qsub", args: []string{"--", "/bin/true"}, stderr: "qsub: No default queue specified\n", code: 189}.check(t, c)
	})
	t.Run("qstat_nothing_to_show", func(t *testing.T) {
		for _, args := range [][]string{nil, {"-a"}, {"-s"}, {"-f"}, {"-w"}} {
			if r := c.run("qstat", args...); r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Errorf("qstat %v with no jobs: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
			}
		}
	})
}
