package pbscmd

import (
	"fmt"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// jobTableWidths are the column widths of qstat's default table.
type jobTableWidths struct {
	id, name, user, queue int
	header, dashes        string
	pHeader               string // header with -p's "% done"
}

// Normal and -w widths, with OpenPBS's fixed header texts.
var (
	jobTableNormal = jobTableWidths{
		id: 17, name: 16, user: 16, queue: 16,
		header:  "Job id            Name             User              Time Use S Queue\n",
		pHeader: "Job id            Name             User               % done  S Queue\n",
		dashes:  "----------------  ---------------- ----------------  -------- - -----\n",
	}
	// jobTableLarge is used when max_job_sequence_id > 9,999,999: the Job
	// id column grows to 22.
	jobTableLarge = jobTableWidths{
		id: 22, name: 16, user: 16, queue: 16,
		header:  "Job id                 Name             User              Time Use S Queue\n",
		pHeader: "Job id                 Name             User               % done  S Queue\n",
		dashes:  "---------------------  ---------------- ----------------  -------- - -----\n",
	}
	jobTableWide = jobTableWidths{
		id: 30, name: 15, user: 15, queue: 15,
		header:  "Job id                         Name            User             Time Use S Queue\n",
		pHeader: "Job id                         Name            User              % done  S Queue\n",
		dashes:  "-----------------------------  --------------- ---------------  -------- - ---------------\n",
	}
)

// writeJobTable writes qstat's default format. Nothing at all is written
// when there are no jobs, as scripts counting lines expect.
func writeJobTable(b *strings.Builder, jobs []*model.Job, wide, percent, largeIDs bool) {
	if len(jobs) == 0 {
		return
	}
	w := jobTableNormal
	if wide {
		w = jobTableWide
	} else if largeIDs {
		w = jobTableLarge
	}
	if percent {
		b.WriteString(w.pHeader)
	} else {
		b.WriteString(w.header)
	}
	b.WriteString(w.dashes)
	for _, j := range jobs {
		b.WriteString(jobTableRow(j, w, percent))
	}
}

// jobTableRow formats one row: "%-17s %-16s %-16s  %8s %1s %-16s\n" with
// OpenPBS's truncation rules.
func jobTableRow(j *model.Job, w jobTableWidths, percent bool) string {
	id := truncMark(model.ShortJobID(j.ID), w.id)
	name := truncMarkAt(j.Name, w.name)
	user, _, _ := strings.Cut(j.Owner, "@")
	user = truncMark(user, w.user)
	queue, _, _ := strings.Cut(j.Queue, "@")
	queue = truncMark(queue, w.queue)
	state := j.State
	if len(state) > 1 {
		state = state[:1]
	}
	timeUse := j.Used["cput"]
	if timeUse == "" {
		timeUse = "0"
	}
	timeUse = truncMark(timeUse, 8)
	if percent {
		timeUse = percentDone(j)
	}
	return fmt.Sprintf("%-*s %-*s %-*s  %8s %1s %-*s\n",
		w.id, id, w.name, name, w.user, user, timeUse, state, w.queue, queue)
}

// percentDone is -p's column: the larger of cput and walltime used as a
// share of what was requested, "-- " when unknown or not started.
func percentDone(j *model.Job) string {
	switch j.State {
	case model.StateQueued, model.StateTransit, model.StateWaiting:
		return "-- "
	case model.StateExpired:
		return "100"
	}
	best := int64(-1)
	for _, r := range []string{"cput", "walltime"} {
		used, req := j.Used[r], j.ResourceList[r]
		if used == "" || req == "" {
			continue
		}
		u, err1 := model.ParseDuration(used)
		q, err2 := model.ParseDuration(req)
		if err1 != nil || err2 != nil || q == 0 {
			continue
		}
		if p := u * 100 / q; p > best {
			best = p
		}
	}
	if best < 0 {
		return "-- "
	}
	return fmt.Sprintf("%3d ", best)
}
