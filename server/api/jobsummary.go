package api

import (
	"context"
	"net/http"
	"net/url"

	"github.com/strata-hpc/strata/model"
)

// qstat's tables (default, -a, -s, -n, -1, -w, -p, -T, -t, -x, -J, -G,
// -M, -i, -r, -H, -u) print a few columns of each job, but used to receive
// and decode every job's whole status (Variable_List, select, history,
// paths...), as qstat -f needs: at 100,000 subjobs most of qstat -t's time
// was that decoding. A client that asks for JobsViewSummary gets, for each
// job, only what the tables read.
//
// The summary's JSON names are model.Job's own, so a client decodes it into
// the same JobsResponse: a server that predates the view ignores the
// parameter and sends full statuses, which the tables print the same way.

// JobsViewSummary is the "view" parameter of GET /jobs asking for
// JobSummary instead of JobStatus.
const JobsViewSummary = "summary"

// tableResources are the Resource_List entries the tables show: Req'd
// Time (walltime, else cput), NDS, TSK, Req'd Memory, and -p's share.
var tableResources = []string{"walltime", "cput", "nodect", "ncpus", "mem"}

// tableUsed are the resources_used entries the tables show: Time Use and
// Elap Time (and -p's share).
var tableUsed = []string{"cput", "walltime"}

// JobSummary is a job as qstat's tables need it. Every field is one of
// model.Job's, under the same JSON name, taken from the same job value the
// full status would be made of: it never shows more than JobStatus.
type JobSummary struct {
	ID           string            `json:"id"`
	Name         string            `json:"name,omitempty"`
	Owner        string            `json:"owner,omitempty"`
	State        string            `json:"state"`
	Queue        string            `json:"queue,omitempty"`
	ResourceList map[string]string `json:"resource_list,omitempty"`
	Stime        int64             `json:"stime,omitempty"`
	// Exec is exec_host for -n (host and ncpus of each chunk).
	Exec      []model.ExecChunk `json:"exec,omitempty"`
	SessionID int               `json:"session_id,omitempty"`
	Used      map[string]string `json:"resources_used,omitempty"`
	Comment   string            `json:"comment,omitempty"`
	// Array marks an array parent (-J); ArrayID a subjob.
	Array    *model.ArrayState `json:"array,omitempty"`
	EstStart int64             `json:"estimated_start_time,omitempty"`
	ArrayID  string            `json:"array_id,omitempty"`
}

// NewJobSummary is the one place the tables' view of a job is made.
func NewJobSummary(j *model.Job) *JobSummary {
	return &JobSummary{
		ID: j.ID, Name: j.Name, Owner: j.Owner, State: j.State, Queue: j.Queue,
		ResourceList: pick(j.ResourceList, tableResources), Stime: j.Stime,
		Exec: summaryExec(j.Exec), SessionID: j.SessionID, Used: pick(j.Used, tableUsed),
		Comment: j.Comment, Array: j.Array, EstStart: j.EstStart(), ArrayID: j.ArrayID(),
	}
}

// summaryExec keeps of exec_vnode what exec_host is made of: each share's
// host and ncpus (vnode names, AOEs and other amounts are qstat -f's).
func summaryExec(exec []model.ExecChunk) []model.ExecChunk {
	if len(exec) == 0 {
		return nil
	}
	out := make([]model.ExecChunk, len(exec))
	for i, ec := range exec {
		shares := make([]model.VnodeShare, len(ec.Shares))
		for k, s := range ec.Shares {
			shares[k].Host = s.Host
			if n, ok := s.Amounts["ncpus"]; ok {
				shares[k].Amounts = map[string]float64{"ncpus": n}
			}
		}
		out[i].Shares = shares
	}
	return out
}

// pick copies the named entries of m that are set.
func pick(m map[string]string, names []string) map[string]string {
	var out map[string]string
	for _, n := range names {
		if v, ok := m[n]; ok {
			if out == nil {
				out = make(map[string]string, len(names))
			}
			out[n] = v
		}
	}
	return out
}

// JobsQuery is a GET /jobs request: ids (none for every visible job),
// finished jobs too (History), every array's subjobs (Subjobs), and the
// view (empty for full statuses, JobsViewSummary for the tables').
type JobsQuery struct {
	IDs              []string
	History, Subjobs bool
	View             string
}

// JobsView queries jobs as q says. Jobs and JobsWithSubjobs are JobsView
// with the full view.
func (c *Client) JobsView(ctx context.Context, q JobsQuery) (*JobsResponse, error) {
	v := url.Values{}
	for _, id := range q.IDs {
		v.Add("id", id)
	}
	if q.History {
		v.Set("history", "1")
	}
	if q.Subjobs {
		v.Set("subjobs", "1")
	}
	if q.View != "" {
		v.Set("view", q.View)
	}
	var out JobsResponse
	err := c.Do(ctx, http.MethodGet, "/jobs", v, nil, &out)
	return &out, err
}
