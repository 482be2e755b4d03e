package pbscmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// JobsWithSubjobs answers qstat -t from the fake's jobs: its subjob
// records are listed like any job (the full path, as an older server).
func (f *fakeServer) JobsWithSubjobs(ctx context.Context, ids []string, history bool) (*api.JobsResponse, error) {
	return f.Jobs(ctx, ids, history)
}

func (f *fakeServer) Order(context.Context, string, api.OrderRequest) error {
	return model.Err(model.PBSENoSupport)
}

// summaryServer answers the summary view as the real server does: each
// job the full reply holds, made into api.JobSummary and sent through
// JSON; it records the views it was asked for.
type summaryServer struct {
	*fakeServer
	views []string
}

func (s *summaryServer) JobsView(ctx context.Context, q api.JobsQuery) (*api.JobsResponse, error) {
	s.views = append(s.views, q.View)
	full, err := s.JobsWithSubjobs(ctx, q.IDs, q.History)
	if err != nil || q.View != api.JobsViewSummary {
		return full, err
	}
	type wire struct {
		Server api.ServerInfo    `json:"server"`
		Jobs   []*api.JobSummary `json:"jobs"`
	}
	w := wire{Server: full.Server}
	for _, j := range full.Jobs {
		w.Jobs = append(w.Jobs, api.NewJobSummary(j.Job))
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	var out api.JobsResponse
	return &out, json.Unmarshal(b, &out)
}

// summaryTestJobs are jobs with every column of the tables set somewhere:
// stored jobs (real FSM), an array with running and finished subjobs on
// several hosts, finished jobs, comments longer than -s's cut, long names
// and ids, estimated starts, -p's requests.
func summaryTestJobs(t *testing.T) []*model.Job {
	jobs := append(storedJobs(t), refTableJobs()...)
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC).Unix()
	parent := &model.Job{ID: "200[].pbssvr", Name: "an_array_with_a_long_name", Owner: "alice@login1.example.com",
		State: model.StateBegun, Queue: "workq", Array: &model.ArrayState{Start: 1, End: 4, Step: 1},
		ResourceList: map[string]string{"ncpus": "2", "nodect": "1", "mem": "123456789kb", "walltime": "02:00:00"}}
	jobs = append(jobs, parent)
	for i, st := range []string{model.StateRunning, model.StateExpired, model.StateQueued, model.StateRunning} {
		s := refJob102()
		s.ID, s.Name, s.State = model.SubjobID("200[].pbssvr", int64(i+1)), parent.Name, st
		s.SetArrayID(parent.ID)
		s.SetArrayIndex(int64(i + 1))
		s.Comment = strings.Repeat("a long comment ", 12)
		if st == model.StateQueued {
			s.Exec, s.Used, s.SessionID, s.Stime = nil, nil, 0, 0
			s.SetEstStart(now + 3600)
		}
		jobs = append(jobs, s)
	}
	many := refJob102()
	many.ID, many.Name = "12345678901.pbssvr-with-a-long-name", "a_name_longer_than_every_column_width"
	for h := 0; h < 12; h++ {
		many.Exec = append(many.Exec, model.ExecChunk{Shares: []model.VnodeShare{
			{Vnode: "vn" + string(rune('a'+h)), Host: "host" + string(rune('a'+h)) + ".cluster.example.com", Amounts: map[string]float64{"ncpus": 3, "mem": 1}},
			{Vnode: "vx", Host: "hostx", Amounts: map[string]float64{"ncpus": 1}}}})
	}
	done := refJob102()
	done.ID, done.State, done.Comment = "105.pbssvr", model.StateFinished, "Job run at Mon Jun 02 and finished"
	waiting := &model.Job{ID: "106.pbssvr", Name: "w", Owner: "bob@login1", State: model.StateQueued, Queue: "workq",
		ResourceList: map[string]string{"cput": "00:10:00", "mem": "2gb"}}
	waiting.SetEstStart(now + 2*86400)
	return append(jobs, many, done, waiting)
}

// TestQstatSummaryMatchesFull prints every table form of qstat from job
// summaries (api.JobSummary, what the server sends for ?view=summary) and
// from full statuses (what an older server sends), and requires the same
// bytes, exit status and errors.
func TestQstatSummaryMatchesFull(t *testing.T) {
	t.Setenv("TZ", "UTC")
	forms := [][]string{
		{}, {"-x"}, {"-t"}, {"-t", "-x"}, {"-w"}, {"-w", "-x"}, {"-p", "-x"}, {"-J"}, {"-J", "-t"},
		{"-a"}, {"-a", "-x", "-t"}, {"-a", "-w", "-t"}, {"-n", "-t"}, {"-n", "-1", "-w", "-x"},
		{"-s", "-t"}, {"-s", "-w", "-x"}, {"-n", "-s", "-1", "-x", "-t"}, {"-T", "-t"}, {"-T", "-w", "-x"},
		{"-i", "-t"}, {"-r", "-t"}, {"-H"}, {"-H", "-f", "-t"}, {"-u", "bob", "-x"}, {"-G", "-a", "-x"}, {"-M", "-a", "-x"},
		{"-x", "200[].pbssvr", "105.pbssvr"}, {"-t", "-x", "200[2].pbssvr"}, {"-s", "105.pbssvr"}, {"workq"},
	}
	for _, args := range forms {
		full := &fakeServer{jobs: summaryTestJobs(t), info: apiInfo()}
		want, wantCode := runQstat(t, full, args...)
		sum := &summaryServer{fakeServer: &fakeServer{jobs: summaryTestJobs(t), info: apiInfo()}}
		tio := newTestEnv(sum)
		code := Qstat(context.Background(), tio.env, args)
		name := "qstat " + strings.Join(args, " ")
		if len(sum.views) == 0 || sum.views[0] != api.JobsViewSummary {
			t.Errorf("%s: asked for views %q, want the summary", name, sum.views)
		}
		if code != wantCode || tio.stdout.String() != want.stdout.String() || tio.stderr.String() != want.stderr.String() {
			t.Errorf("%s: summary path differs\n got (%d):\n%s%s\nwant (%d):\n%s%s", name,
				code, tio.stdout, tio.stderr, wantCode, want.stdout, want.stderr)
		}
		if len(args) == 0 && !strings.Contains(want.stdout.String(), "sim_run_big_cas*") {
			t.Fatalf("%s printed no jobs:\n%s", name, want.stdout)
		}
	}
}

// TestQstatFullAsksForFullStatuses: qstat -f and -F json/dsv never ask
// for the summary.
func TestQstatFullAsksForFullStatuses(t *testing.T) {
	for _, args := range [][]string{{"-f"}, {"-f", "-t", "-x"}, {"-f", "-F", "json"}, {"-f", "-F", "dsv", "-x"}, {"-f", "-a"}} {
		sum := &summaryServer{fakeServer: &fakeServer{jobs: summaryTestJobs(t), info: apiInfo()}}
		tio := newTestEnv(sum)
		if code := Qstat(context.Background(), tio.env, args); code != 0 {
			t.Fatalf("qstat %v: exit %d: %s", args, code, tio.stderr)
		}
		if len(sum.views) != 0 || !strings.Contains(tio.stdout.String(), "Variable_List") {
			t.Errorf("qstat %v: views %q, output:\n%s", args, sum.views, tio.stdout)
		}
	}
}
