package pbscmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// refFull102 is the qstat -f example of the compatibility reference (§3.3),
// byte for byte, including the cut exec_vnode and the TAB continuations.
const refFull102 = "Job Id: 102.pbssvr\n" +
	"    Job_Name = sim_run\n" +
	"    Job_Owner = alice@login1.example.com\n" +
	"    resources_used.cput = 01:40:12\n" +
	"    resources_used.mem = 30215040kb\n" +
	"    resources_used.ncpus = 16\n" +
	"    resources_used.walltime = 00:12:41\n" +
	"    job_state = R\n" +
	"    queue = workq\n" +
	"    server = pbssvr\n" +
	"    Checkpoint = u\n" +
	"    ctime = Mon Jun  2 09:58:11 2025\n" +
	"    Error_Path = login1.example.com:/home/alice/proj/sim_run.e102\n" +
	"    exec_host = node01/0*8+node02/0*8\n" +
	"    exec_vnode = (node01:ncpus=8:mem=16777216kb)+(node02:ncpus=8:mem=16777216kb\n" +
	"\t)\n" +
	"    Hold_Types = n\n" +
	"    Join_Path = n\n" +
	"    Keep_Files = n\n" +
	"    Mail_Points = a\n" +
	"    Output_Path = login1.example.com:/home/alice/proj/sim_run.o102\n" +
	"    Priority = 0\n" +
	"    Rerunable = True\n" +
	"    Resource_List.mem = 32gb\n" +
	"    Resource_List.ncpus = 16\n" +
	"    Resource_List.nodect = 2\n" +
	"    Resource_List.place = scatter\n" +
	"    Resource_List.select = 2:ncpus=8:mem=16gb\n" +
	"    Resource_List.walltime = 12:00:00\n" +
	"    stime = Mon Jun  2 10:00:01 2025\n" +
	"    session_id = 48213\n" +
	"    substate = 42\n" +
	"    Variable_List = PBS_O_HOME=/home/alice,PBS_O_LANG=en_US.UTF-8,\n" +
	"\tPBS_O_LOGNAME=alice,\n" +
	"\tPBS_O_PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin,\n" +
	"\tPBS_O_MAIL=/var/spool/mail/alice,PBS_O_SHELL=/bin/bash,\n" +
	"\tPBS_O_WORKDIR=/home/alice/proj,PBS_O_SYSTEM=Linux,PBS_O_QUEUE=workq,\n" +
	"\tPBS_O_HOST=login1.example.com\n" +
	"    comment = Job run at Mon Jun 02 at 10:00 on (node01:ncpus=8:mem=16777216kb)\n" +
	"\t+(node02:ncpus=8:mem=16777216kb)\n" +
	"    etime = Mon Jun  2 09:58:11 2025\n" +
	"    run_count = 1\n" +
	"    Submit_arguments = -N sim_run -l select=2:ncpus=8:mem=16gb -l place=scatter\n" +
	"\t job.sh\n" +
	"    project = _pbs_project_default\n" +
	"    Submit_Host = login1.example.com\n" +
	"\n"

// refJob102 is the job behind refFull102.
func refJob102() *model.Job {
	at := func(h, m, s int) int64 { return time.Date(2025, 6, 2, h, m, s, 0, time.UTC).Unix() }
	mem := float64(16 << 30)
	chunk := func(node string) model.ExecChunk {
		return model.ExecChunk{MPIProcs: 8, Shares: []model.VnodeShare{{Vnode: node, Host: node, Amounts: map[string]float64{"ncpus": 8, "mem": mem}}}}
	}
	return &model.Job{
		ID: "102.pbssvr", Seq: 102, Name: "sim_run", Owner: "alice@login1.example.com",
		User: "alice", State: model.StateRunning, Substate: model.SubRunning,
		Queue: "workq", Server: "pbssvr", Rerun: true,
		Used:   map[string]string{"cput": "01:40:12", "mem": "30215040kb", "ncpus": "16", "walltime": "00:12:41"},
		Output: "login1.example.com:/home/alice/proj/sim_run.o102",
		Error:  "login1.example.com:/home/alice/proj/sim_run.e102",
		Exec:   []model.ExecChunk{chunk("node01"), chunk("node02")},
		ResourceList: map[string]string{
			"mem": "32gb", "ncpus": "16", "nodect": "2", "place": "scatter",
			"select": "2:ncpus=8:mem=16gb", "walltime": "12:00:00",
		},
		Ctime: at(9, 58, 11), Etime: at(9, 58, 11), Stime: at(10, 0, 1),
		SessionID: 48213, RunCount: 1,
		Env: []model.EnvVar{
			{Name: "PBS_O_HOME", Value: "/home/alice"},
			{Name: "PBS_O_LANG", Value: "en_US.UTF-8"},
			{Name: "PBS_O_LOGNAME", Value: "alice"},
			{Name: "PBS_O_PATH", Value: "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin"},
			{Name: "PBS_O_MAIL", Value: "/var/spool/mail/alice"},
			{Name: "PBS_O_SHELL", Value: "/bin/bash"},
			{Name: "PBS_O_WORKDIR", Value: "/home/alice/proj"},
			{Name: "PBS_O_SYSTEM", Value: "Linux"},
			{Name: "PBS_O_QUEUE", Value: "workq"},
			{Name: "PBS_O_HOST", Value: "login1.example.com"},
		},
		Comment:    "Job run at Mon Jun 02 at 10:00 on (node01:ncpus=8:mem=16777216kb)+(node02:ncpus=8:mem=16777216kb)",
		SubmitArgs: "-N sim_run -l select=2:ncpus=8:mem=16gb -l place=scatter job.sh",
		SubmitHost: "login1.example.com",
	}
}

// refTableJobs are the jobs of the default-format example (§3.1).
func refTableJobs() []*model.Job {
	big := refJob102()
	big.Name = "sim_run_big_case"
	big.Owner = "bob@login1.example.com"
	big.Used = map[string]string{"cput": "00:12:41"}
	return []*model.Job{
		{ID: "101.pbssvr", Name: "STDIN", Owner: "alice@login1", State: "Q", Queue: "workq"},
		big,
		{ID: "103[].pbssvr", Name: "arrayjob", Owner: "alice@login1", State: "B", Queue: "workq"},
		{ID: "104.pbssvr", Name: "post", Owner: "carol@login1", State: "H", Queue: "batch_long_queue_x@pbssvr"},
		{ID: "99.pbssvr", Name: "old", Owner: "alice@login1", State: "F", Queue: "workq"},
	}
}

func runQstat(t *testing.T, srv *fakeServer, args ...string) (*testIO, int) {
	t.Helper()
	tio := newTestEnv(srv)
	return tio, Qstat(context.Background(), tio.env, args)
}

func TestQstatDefaultTable(t *testing.T) {
	want := "Job id            Name             User              Time Use S Queue\n" +
		"----------------  ---------------- ----------------  -------- - -----\n" +
		"101.pbssvr        STDIN            alice                    0 Q workq           \n" +
		"102.pbssvr        sim_run_big_cas* bob               00:12:41 R workq           \n" +
		"103[].pbssvr      arrayjob         alice                    0 B workq           \n" +
		"104.pbssvr        post             carol                    0 H batch_long_queu*\n"
	tio, code := runQstat(t, &fakeServer{jobs: refTableJobs()})
	if code != 0 || tio.stdout.String() != want || tio.stderr.Len() != 0 {
		t.Errorf("exit %d stderr %q\n got:\n%s\nwant:\n%s", code, tio.stderr, tio.stdout, want)
	}
}

func TestQstatTruncationAndWide(t *testing.T) {
	j := &model.Job{ID: "1234567.averyveryverylongserver.example.com", Name: "exactly15chars_", Owner: "averyveryverylonguser@h",
		State: "R", Queue: "q", Used: map[string]string{"cput": "123:45:06"}}
	row := jobTableRow(j, jobTableNormal, false)
	want := "1234567.averyver* exactly15chars_  averyveryverylo*  123:45:* R q               \n"
	if row != want {
		t.Errorf("normal row\n got %q\nwant %q", row, want)
	}
	row = jobTableRow(j, jobTableWide, false)
	want = "1234567.averyveryverylongserv* exactly15chars* averyveryveryl*  123:45:* R q              \n"
	if row != want {
		t.Errorf("wide row\n got %q\nwant %q", row, want)
	}
}

func TestQstatNothingWhenNoJobs(t *testing.T) {
	tio, code := runQstat(t, &fakeServer{})
	if code != 0 || tio.stdout.Len() != 0 || tio.stderr.Len() != 0 {
		t.Errorf("exit %d stdout %q stderr %q", code, tio.stdout, tio.stderr)
	}
}

func TestQstatFullMatchesReference(t *testing.T) {
	tio, code := runQstat(t, &fakeServer{jobs: []*model.Job{refJob102()}}, "-f", "102")
	if code != 0 || tio.stdout.String() != refFull102 {
		t.Errorf("exit %d stderr %q\n got:\n%s\nwant:\n%s", code, tio.stderr, tio.stdout, refFull102)
	}
}

func TestQstatFullWideIsUnfolded(t *testing.T) {
	j := refJob102()
	j.Comment = "line1\nline2"
	tio, _ := runQstat(t, &fakeServer{jobs: []*model.Job{j}}, "-fw", "102.pbssvr")
	out := tio.stdout.String()
	if strings.Contains(out, "\t") || !strings.Contains(out, "    comment = line1\\nline2\n") ||
		!strings.Contains(out, "    exec_vnode = (node01:ncpus=8:mem=16777216kb)+(node02:ncpus=8:mem=16777216kb)\n") {
		t.Errorf("-f -w output:\n%s", out)
	}
}

func TestWriteFoldedLongPieces(t *testing.T) {
	var b strings.Builder
	writeFolded(&b, "exec_vnode", "", strings.Repeat("x", 150))
	want := "    exec_vnode = " + strings.Repeat("x", 62) + "\n\t" + strings.Repeat("x", 71) + "\n\t" + strings.Repeat("x", 17)
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	writeFolded(&b, "a", "", "short,,pieces")
	if b.String() != "    a = short,pieces" {
		t.Errorf("empty pieces vanish like strtok: %q", b.String())
	}
}

func TestQstatJSON(t *testing.T) {
	srv := &fakeServer{jobs: []*model.Job{refJob102()}, info: apiInfo()}
	tio, code := runQstat(t, srv, "-f", "-F", "json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	out := tio.stdout.String()
	for _, want := range []string{
		"{\n\t\"timestamp\":\t1748858401,\n\t\"pbs_version\":\t\"strata-test\",\n\t\"pbs_server\":\t\"pbssvr\",\n\t\"Jobs\":\t{\n\t\t\"102.pbssvr\":\t{\n",
		"\t\t\t\"Job_Name\":\t\"sim_run\",\n",
		"\t\t\t\"resources_used\":\t{\n\t\t\t\t\"cput\":\t\"01:40:12\",\n\t\t\t\t\"mem\":\t\"30215040kb\",\n\t\t\t\t\"ncpus\":\t16,\n\t\t\t\t\"walltime\":\t\"00:12:41\"\n\t\t\t},\n",
		"\t\t\t\"ctime\":\t\"Mon Jun  2 09:58:11 2025\",\n",
		"\t\t\t\"Priority\":\t0,\n",
		"\t\t\t\"Rerunable\":\t\"True\",\n",
		"\t\t\t\t\"nodect\":\t2,\n",
		"\t\t\t\"Variable_List\":\t{\n\t\t\t\t\"PBS_O_HOME\":\t\"/home/alice\",\n",
		"\t\t\t\"session_id\":\t48213,\n",
		"\t\t\t\"project\":\t\"_pbs_project_default\",\n",
		"\t\t\t\"Submit_Host\":\t\"login1.example.com\"\n\t\t}\n\t}\n}\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %q:\n%s", want, out)
		}
	}
}

func TestQstatJSONNumbersAndStrings(t *testing.T) {
	j := &model.Job{ID: "5.s", Name: "123", State: "Q", Project: "42", Account: "7"}
	o := attrsJSON(jobAttrs(j, model.BuiltinResources(), time.UTC))
	for k, want := range map[string]any{"Job_Name": "123", "project": "42", "Account_Name": "7", "Priority": jsonNumber("0"), "Hold_Types": "n"} {
		if got := o.vals[k]; got != want {
			t.Errorf("%s = %#v, want %#v", k, got, want)
		}
	}
}

func TestQstatErrors(t *testing.T) {
	srv := &fakeServer{jobs: refTableJobs()}
	tio, code := runQstat(t, srv, "999")
	if code != 153 || tio.stderr.String() != "qstat: Unknown Job Id 999.pbssvr\n" || tio.stdout.Len() != 0 {
		t.Errorf("unknown: exit %d stderr %q", code, tio.stderr)
	}
	tio, code = runQstat(t, srv, "99")
	if code != 35 || tio.stderr.String() != "qstat: 99.pbssvr Job has finished, use -x or -H to obtain historical job information\n" {
		t.Errorf("finished: exit %d stderr %q", code, tio.stderr)
	}
	tio, code = runQstat(t, srv, "-x", "99")
	if code != 0 || !strings.Contains(tio.stdout.String(), "99.pbssvr         old ") {
		t.Errorf("-x: exit %d stdout %q stderr %q", code, tio.stdout, tio.stderr)
	}
	// Each operand is tried; the exit status is the last failure's.
	tio, code = runQstat(t, srv, "999", "101", "x!y", "102")
	if code != 1 || tio.stderr.String() != "qstat: Unknown Job Id 999.pbssvr\nqstat: illegally formed job identifier: x!y\n" {
		t.Errorf("several: exit %d stderr %q", code, tio.stderr)
	}
	if n := strings.Count(tio.stdout.String(), "\n"); n != 4 {
		t.Errorf("several: want header + 2 rows, got\n%s", tio.stdout)
	}
	tio, code = runQstat(t, srv, "-F", "json")
	if code != 2 || !strings.HasSuffix(tio.stderr.String(), qstatUsage) {
		t.Errorf("-F without -f: exit %d stderr %q", code, tio.stderr)
	}
}

func TestQstatHistoryDisabled(t *testing.T) {
	info := apiInfo()
	info.History = false
	tio, code := runQstat(t, &fakeServer{jobs: refTableJobs(), info: info}, "-x")
	if code != 0 || tio.stderr.String() != "qstat: PBS is not configured to maintain job history\n" || tio.stdout.Len() != 0 {
		t.Errorf("exit %d stdout %q stderr %q", code, tio.stdout, tio.stderr)
	}
}

// TestQstatFullNeverPrintsALoneTab: whatever the length of a folded value,
// no line of qstat -f holds only a tab (a break right after the last byte
// of a piece used to leave one).
func TestQstatFullNeverPrintsALoneTab(t *testing.T) {
	for n := 1; n < 300; n++ {
		var b strings.Builder
		writeFolded(&b, "comment", "", strings.Repeat("x", n)+",y")
		writeFolded(&b, "comment", "", strings.Repeat("x", n))
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.TrimSpace(line) == "" || strings.TrimSpace(line) == "," {
				t.Fatalf("value of %d bytes: empty line %q in\n%s", n, line, b.String())
			}
		}
	}
}

// TestQstatFullShowsDepend: depend is shown after ctime with every job id
// qualified by its server, as OpenPBS shows it.
func TestQstatFullShowsDepend(t *testing.T) {
	j := refJob102()
	j.SetDepend("afterok:100.pbssvr:101.pbssvr,before:103.pbssvr")
	tio, _ := runQstat(t, &fakeServer{jobs: []*model.Job{j}}, "-f", "102")
	want := "    ctime = Mon Jun  2 09:58:11 2025\n    depend = afterok:100.pbssvr@pbssvr:101.pbssvr@pbssvr,\n\tbefore:103.pbssvr@pbssvr\n    Error_Path"
	if !strings.Contains(tio.stdout.String(), want) {
		t.Errorf("qstat -f:\n%s\nwant a part\n%s", tio.stdout, want)
	}
}
