package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore/manager"
	"github.com/strata-hpc/strata/server/api"
)

// TestJobsSummaryView: GET /jobs?view=summary lists exactly the jobs the
// full reply lists (arrays with their subjobs, finished ones with
// history), each as api.JobSummary of the full status; and a user without
// query_other_jobs learns nothing more from it than from the full reply.
func TestJobsSummaryView(t *testing.T) {
	ts := startTestServer(t, func(cfg *Config) { cfg.QueryOtherJobs = false })
	ctx := context.Background()
	if err := ts.root.Manage(ctx, &model.ManagerRequest{Verb: manager.Set, Object: manager.Server,
		Attrs: []model.ManagerAttr{{Name: "scheduling", Op: "=", Value: "false"}}}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, req := range []*api.SubmitRequest{
		{Name: "plain", Hold: "u", Argv: []string{"/bin/true"}, Workdir: "/tmp"},
		{Name: "array", ArrayIndices: "1-5", Argv: []string{"/bin/true"}, Workdir: "/tmp"},
	} {
		req.Token = fmt.Sprint("summary-", i)
		id, err := ts.root.Submit(ctx, req, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := ts.root.Delete(ctx, ids[0], api.DeleteRequest{}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []api.JobsQuery{{}, {History: true}, {Subjobs: true, History: true}, {IDs: []string{ids[1]}, Subjobs: true},
		{IDs: []string{strings.Replace(ids[1], "[]", "[2-4]", 1)}, Subjobs: true}} {
		full, err := ts.root.JobsView(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		q.View = api.JobsViewSummary
		sum, err := ts.root.JobsView(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Jobs) != len(sum.Jobs) || len(full.Jobs) == 0 {
			t.Fatalf("%+v: %d summaries for %d jobs", q, len(sum.Jobs), len(full.Jobs))
		}
		for i, f := range full.Jobs {
			b, _ := json.Marshal(api.NewJobSummary(f.Job))
			var want model.Job
			json.Unmarshal(b, &want)
			if !reflect.DeepEqual(&want, sum.Jobs[i].Job) {
				t.Errorf("%+v: job %d is\n%+v\nwant\n%+v", q, i, sum.Jobs[i].Job, &want)
			}
		}
	}

	// Attack: nobody asks for root's jobs in the summary view, by id and
	// in the list, with subjobs and history.
	nobody := ts.asUser(uidUser)
	for _, id := range ids {
		for _, extra := range []string{"", "&subjobs=1", "&history=1&subjobs=1"} {
			r := nobody.do(t, rawReq{Method: http.MethodGet, Path: api.Version + "/jobs?view=summary&id=" + id + extra})
			if r.Code != model.PBSEPerm {
				t.Errorf("nobody's summary of %s%s: %+v, want %d", id, extra, r, model.PBSEPerm)
			}
		}
	}
	r := nobody.do(t, rawReq{Method: http.MethodGet, Path: api.Version + "/jobs?view=summary&subjobs=1&history=1"})
	if r.Status != http.StatusOK || strings.Contains(r.Body, `"id":`) ||
		!strings.Contains(r.Body, `"jobs":[]`) {
		t.Errorf("nobody's summary list: %+v", r)
	}
}
