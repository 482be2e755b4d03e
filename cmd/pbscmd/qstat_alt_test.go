package pbscmd

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// refAltJobs are the jobs of the reference's alternate-format example (§3.2).
func refAltJobs() []*model.Job {
	return []*model.Job{
		{ID: "101.pbssvr", Seq: 101, Name: "STDIN", Owner: "alice@login1", Queue: "workq", State: "Q",
			ResourceList: map[string]string{"nodect": "1", "ncpus": "1", "mem": "2gb", "walltime": "01:00:00"}},
		{ID: "102.pbssvr", Seq: 102, Name: "sim_run_big_case", Owner: "bob@login1", Queue: "workq", State: "R",
			SessionID: 48213, Used: map[string]string{"walltime": "00:12:41"},
			ResourceList: map[string]string{"nodect": "2", "ncpus": "16", "mem": "32gb", "walltime": "12:00:00"},
			Exec: []model.ExecChunk{
				{Shares: []model.VnodeShare{{Vnode: "node01", Host: "node01.example.com", Amounts: map[string]float64{"ncpus": 8}}}},
				{Shares: []model.VnodeShare{{Vnode: "node02", Host: "node02.example.com", Amounts: map[string]float64{"ncpus": 8}}}},
			}},
	}
}

const refAltHeader = "\npbssvr: \n" +
	"                                                            Req'd  Req'd   Elap\n" +
	"Job ID          Username Queue    Jobname    SessID NDS TSK Memory Time  S Time\n" +
	"--------------- -------- -------- ---------- ------ --- --- ------ ----- - -----\n"

func TestQstatAlternateMatchesReference(t *testing.T) {
	srv := &fakeServer{jobs: refAltJobs(), info: apiInfo()}
	tio, code := runQstat(t, srv, "-an")
	want := refAltHeader +
		"101.pbssvr      alice    workq    STDIN         --    1   1    2gb 01:00 Q   -- \n" +
		"102.pbssvr      bob      workq    sim_run_b*  48213   2  16   32gb 12:00 R 00:12\n" +
		"   node01/0*8+node02/0*8\n"
	if code != 0 || tio.stdout.String() != want {
		t.Errorf("exit %d\n got %q\nwant %q", code, tio.stdout, want)
	}
	// -1 puts the nodes on the row; -s adds the comment; -r keeps running jobs.
	srv.jobs[1].Comment = "Job run at Mon Jun 02 at 10:00 on (node01:ncpus=8)+(node02:ncpus=8)"
	tio, _ = runQstat(t, srv, "-a", "-r", "-n", "-s", "-1")
	if !strings.HasSuffix(tio.stdout.String(), "12:00 R 00:12 node01/0*8+node02/0*8 "+srv.jobs[1].Comment+"\n") ||
		strings.Contains(tio.stdout.String(), "101.pbssvr") {
		t.Errorf("-a -r -n -s -1:\n%s", tio.stdout)
	}
	// -u filters by owner; -i keeps queued, held and waiting jobs.
	tio, _ = runQstat(t, srv, "-u", "bob")
	if strings.Contains(tio.stdout.String(), "alice") || !strings.Contains(tio.stdout.String(), "bob") {
		t.Errorf("-u bob:\n%s", tio.stdout)
	}
	tio, _ = runQstat(t, srv, "-i")
	if strings.Contains(tio.stdout.String(), "102.pbssvr") || !strings.Contains(tio.stdout.String(), "101.pbssvr") {
		t.Errorf("-i:\n%s", tio.stdout)
	}
	// Nothing at all when nothing matches.
	tio, _ = runQstat(t, srv, "-u", "carol")
	if tio.stdout.Len() != 0 {
		t.Errorf("-u carol printed %q", tio.stdout)
	}
}

func TestQstatCommentAndLargeIDs(t *testing.T) {
	info := apiInfo()
	info.Comment = "maintenance at 18:00"
	info.MaxJobSequenceID = 999999999999
	srv := &fakeServer{jobs: refAltJobs()[:1], info: info}
	tio, _ := runQstat(t, srv)
	want := "maintenance at 18:00\n" +
		"Job id                 Name             User              Time Use S Queue\n" +
		"---------------------  ---------------- ----------------  -------- - -----\n" +
		"101.pbssvr             STDIN            alice                    0 Q workq           \n"
	if tio.stdout.String() != want {
		t.Errorf("got %q\nwant %q", tio.stdout, want)
	}
	tio, _ = runQstat(t, srv, "-a")
	if !strings.HasPrefix(tio.stdout.String(), "\npbssvr: maintenance at 18:00\n") ||
		!strings.Contains(tio.stdout.String(), "\n101.pbssvr           alice ") {
		t.Errorf("-a:\n%s", tio.stdout)
	}
}

func TestQstatQueueAndServerFormats(t *testing.T) {
	info := apiInfo()
	info.TotalJobs = 3
	info.State = "Active"
	info.StateCount = map[string]int{"Q": 1, "R": 1, "H": 1}
	info.Queues = []api.QueueInfo{{Name: "workq", Type: "execution", Enabled: true, Started: true, TotalJobs: 3,
		StateCount: map[string]int{"Q": 1, "R": 1, "H": 1}}}
	srv := &fakeServer{info: info}
	tio, code := runQstat(t, srv, "-Q")
	want := "Queue              Max   Tot Ena Str   Que   Run   Hld   Wat   Trn   Ext Type\n" +
		"---------------- ----- ----- --- --- ----- ----- ----- ----- ----- ----- ----\n" +
		"workq                0     3 yes yes     1     1     1     0     0     0 Exe*\n"
	if code != 0 || tio.stdout.String() != want {
		t.Errorf("-Q: got %q\nwant %q", tio.stdout, want)
	}
	tio, _ = runQstat(t, srv, "-B")
	want = "Server             Max   Tot   Que   Run   Hld   Wat   Trn   Ext Status\n" +
		"---------------- ----- ----- ----- ----- ----- ----- ----- ----- -----------\n" +
		"pbssvr               0     3     1     1     1     0     0     0 Active    \n"
	if tio.stdout.String() != want {
		t.Errorf("-B: got %q\nwant %q", tio.stdout, want)
	}
	tio, _ = runQstat(t, srv, "-q")
	want = "\nserver: pbssvr\n\n" +
		"Queue            Memory CPU Time Walltime Node   Run   Que   Lm  State\n" +
		"---------------- ------ -------- -------- ---- ----- ----- ----  -----\n" +
		"workq              --      --       --     --      1     1   --   E R\n" +
		"                                               ----- -----\n" +
		"                                                   1     1\n"
	if tio.stdout.String() != want {
		t.Errorf("-q: got %q\nwant %q", tio.stdout, want)
	}
	tio, _ = runQstat(t, srv, "-Qf")
	if !strings.Contains(tio.stdout.String(), "Queue: workq\n    queue_type = Execution\n") ||
		!strings.Contains(tio.stdout.String(), "    state_count = Transit:0 Queued:1 Held:1 Waiting:0 Running:1 Exiting:0 Begun\n\t:0 \n") {
		t.Errorf("-Qf:\n%s", tio.stdout)
	}
	tio, code = runQstat(t, srv, "-Q", "nosuch")
	if code != 170 || tio.stderr.String() != "qstat: Unknown queue nosuch\n" {
		t.Errorf("-Q nosuch: exit %d stderr %q", code, tio.stderr)
	}
}
