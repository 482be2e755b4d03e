package pbscmd

import (
	"context"

	"github.com/strata-hpc/strata/server/api"
)

// qstat's tables print a few columns of each job; they ask the server for
// each job's summary (api.JobSummary, GET /jobs?view=summary) instead of
// its full status, which at 100,000 subjobs took most of qstat -t's time to
// decode. qstat -f (and -F json/dsv) keeps the full statuses. A server
// that predates the view sends full statuses, which print the same.

// jobsViewer is the part of the API that the summary view added; a client
// without it (a test double) is asked for full statuses.
type jobsViewer interface {
	JobsView(ctx context.Context, q api.JobsQuery) (*api.JobsResponse, error)
}

// table reports whether qstat prints a table (renderQstat's alternate and
// default forms) rather than every attribute.
func (o qstatOpts) table() bool { return o.alt || !o.full }

// queryTable asks for the summaries of jobs for a table; ok is false when
// the client cannot, and the caller asks for full statuses.
func queryTable(ctx context.Context, s *session, ids []string, o qstatOpts, subjobs bool) (resp *api.JobsResponse, ok bool, err error) {
	v, isViewer := s.client.(jobsViewer)
	if !o.table() || !isViewer {
		return nil, false, nil
	}
	resp, err = v.JobsView(ctx, api.JobsQuery{IDs: ids, History: o.history, Subjobs: subjobs, View: api.JobsViewSummary})
	return resp, true, err
}
