package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// qstat's reply, written as it is made.
//
// qstat -t of a 100,000-subjob array used to build every subjob (a job
// value each, as a view of the parent or rebuilt from its compact record),
// every job status and the whole JSON document in memory before the first
// byte went out: hundreds of MB at once and seconds of allocation. The
// reply is now a list of parts, one job or the subjobs of an array over a
// range, and each subjob is made, encoded and dropped in turn. The bytes
// are the same as json.Encoder's encoding of api.JobsResponse (a test
// compares them), so clients read it as before.

// jsonStreamer is a handler result that writes its own JSON body (wrap
// sets the headers first).
type jsonStreamer interface {
	writeJSON(w io.Writer) error
}

// jobPart is one job, or (p set) the subjobs of array p with indices in
// [from, to] by step.
type jobPart struct {
	job            *model.Job
	p              *model.Job
	from, to, step int64
}

func onePart(j *model.Job) jobPart { return jobPart{job: j} }

func subjobsPart(p *model.Job, from, to, step int64) jobPart {
	return jobPart{p: p, from: from, to: to, step: step}
}

// jobsReply is api.JobsResponse with its jobs still to be made.
type jobsReply struct {
	snap   *raftstore.StateSnapshot
	server api.ServerInfo
	parts  []jobPart
	// annotate, when set, completes each job's status before it is
	// encoded (the fairshare position of queued jobs).
	annotate func(*api.JobStatus)
	// summary sends api.JobSummary for each job (qstat's tables, GET
	// /jobs?view=summary) instead of the full status.
	summary bool
}

// each calls fn with every job of the reply, in order.
func (r *jobsReply) each(fn func(*model.Job) error) error {
	for _, pt := range r.parts {
		if pt.p == nil {
			if err := fn(pt.job); err != nil {
				return err
			}
			continue
		}
		if err := eachSubjob(r.snap, pt.p, pt.from, pt.to, pt.step, fn); err != nil {
			return err
		}
	}
	return nil
}

// writeJSON writes {"server":...,"jobs":[...]} and a newline, as
// json.NewEncoder(w).Encode(api.JobsResponse{...}) would.
func (r *jobsReply) writeJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	srv, err := json.Marshal(r.server)
	if err != nil {
		return fmt.Errorf("encode server info: %w", err)
	}
	bw.WriteString(`{"server":`)
	bw.Write(srv)
	bw.WriteString(`,"jobs":[`)
	first := true
	err = r.each(func(j *model.Job) error {
		b, err := r.encodeJob(j)
		if err != nil {
			return fmt.Errorf("encode job %s: %w", j.ID, err)
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		_, err = bw.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// encodeJob is one job's entry of the reply: its full status, or its
// summary for the tables (which have no fairshare column).
func (r *jobsReply) encodeJob(j *model.Job) ([]byte, error) {
	if r.summary {
		return json.Marshal(api.NewJobSummary(j))
	}
	st := api.NewJobStatus(j)
	if r.annotate != nil {
		r.annotate(st)
	}
	return json.Marshal(st)
}

// eachSubjob calls fn with the subjobs of parent p with indices in [from,
// to] by step, in index order: their records where they exist, views
// built from the parent otherwise (Q while queued, X once done). One at a
// time: nothing grows with the array's size but the parent's span sets.
func eachSubjob(snap *raftstore.StateSnapshot, p *model.Job, from, to, step int64, fn func(*model.Job) error) error {
	a := p.Array
	lo, hi, ok := a.OrdinalRange(from, to)
	if !ok {
		return nil
	}
	queued, done := spanCursor{set: a.Queued}, spanCursor{set: a.Done}
	for o := lo; o <= hi; o++ {
		idx := a.Index(o)
		if (idx-from)%step != 0 {
			continue
		}
		inQueued, inDone := queued.contains(o), done.contains(o)
		s := snap.Job(model.SubjobID(p.ID, idx))
		switch {
		case s != nil && s.ArrayID() == p.ID:
		case inQueued:
			s = p.NewSubjob(idx)
			if p.State == model.StateHeld || p.State == model.StateWaiting {
				s.State, s.Substate = p.State, p.Substate
			}
		case inDone:
			s = p.NewSubjob(idx)
			s.State, s.Substate = model.StateExpired, model.SubExpired
		default:
			continue
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// spanCursor answers Contains for increasing ordinals in one pass over a
// set's spans (IndexSet.Contains walks from the start each time).
type spanCursor struct {
	set model.IndexSet
	i   int
}

func (c *spanCursor) contains(o int64) bool {
	for c.i < len(c.set) && c.set[c.i].Hi < o {
		c.i++
	}
	return c.i < len(c.set) && c.set[c.i].Lo <= o
}
