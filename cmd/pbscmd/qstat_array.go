package pbscmd

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// queryJobs asks for jobs; with -t (or for a range of subjobs) every array
// parent comes with all its subjobs.
func queryJobs(ctx context.Context, s *session, ids []string, o qstatOpts) (*api.JobsResponse, error) {
	ranges := false
	for _, id := range ids {
		if _, inside, ok := model.SplitArrayID(id); ok && strings.ContainsAny(inside, "-:") {
			ranges = true
		}
	}
	if resp, ok, err := queryTable(ctx, s, ids, o, o.subjobs || ranges); ok { // qstat_summary.go
		return resp, err
	}
	if !o.subjobs && !ranges {
		return s.client.Jobs(ctx, ids, o.history)
	}
	ac, err := arrayClient(s)
	if err != nil {
		return nil, err
	}
	return ac.JobsWithSubjobs(ctx, ids, o.history)
}

// selectArrays applies -J: only array parents, or with -t only subjobs.
func selectArrays(jobs []*model.Job, o qstatOpts) []*model.Job {
	if !o.arraysOnly {
		return jobs
	}
	var out []*model.Job
	for _, j := range jobs {
		if (o.subjobs && j.IsSubjob()) || (!o.subjobs && j.IsArray()) {
			out = append(out, j)
		}
	}
	return out
}

// byEstimatedStart orders jobs for -T: jobs with an estimated start first,
// earliest first; the rest after them in their previous order.
func byEstimatedStart(jobs []*model.Job) []*model.Job {
	out := append([]*model.Job(nil), jobs...)
	sort.SliceStable(out, func(a, b int) bool {
		ea, eb := out[a].EstStart(), out[b].EstStart()
		switch {
		case ea == 0:
			return false
		case eb == 0:
			return true
		}
		return ea < eb
	})
	return out
}

// formatEstStart is -T's "Est Start" column (5 characters, as OpenPBS
// prints it): empty without an estimate, "Now" when due, the time of day
// within a day, weekday and hour within a week, the month within the year,
// the year beyond.
func formatEstStart(est int64, now time.Time) string {
	if est == 0 {
		return "" // shown as the table's " -- "
	}
	t := time.Unix(est, 0).In(now.Location())
	switch d := t.Sub(now); {
	case d <= 0:
		return "Now"
	case d < 24*time.Hour:
		return t.Format("15:04")
	case d < 7*24*time.Hour:
		return t.Format("Mon")[:2] + " " + t.Format("15")
	case t.Year() == now.Year():
		return t.Format("Jan")
	}
	return t.Format("2006")
}
