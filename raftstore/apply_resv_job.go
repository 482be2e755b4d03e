package raftstore

import (
	"fmt"

	"github.com/strata-hpc/strata/model"
)

// Job-specific reservations (docs/reservations.md): pbs_rsub -W
// qmove=<job> makes an ASAP reservation for a queued job, which is moved
// into it when the scheduler confirms it; delete_idle_time deletes a
// running reservation that has had no job for that long.

// confirmJobResv completes the confirmation of r (a copy the caller
// stores): an ASAP reservation takes the start the scheduler found, and
// the job of a qmove reservation moves into its queue.
func (w *writer) confirmJobResv(r *model.Reservation, d model.ResvDecision, now int64) {
	if r.ASAP && d.Start > 0 {
		r.Start, r.End = d.Start, d.Start+r.Duration
	}
	if r.QmoveJob == "" {
		return
	}
	j := w.job(r.QmoveJob)
	if j == nil || j.IsFinished() || j.IsRunning() {
		r.Comment += fmt.Sprintf("; job %s could not be moved in: it is no longer queued", r.QmoveJob)
		return
	}
	j = j.Copy()
	j.Queue = r.Queue
	j.Qtime, j.Mtime = now, now
	w.note(j, now, "Job moved to queue %s: reservation %s confirmed", r.Queue, r.ID)
	w.putJob(j)
}

// resvIdle is the idle check of a running reservation with
// delete_idle_time: it notes when the reservation became empty, forgets it
// when it has jobs again, and deletes it once it has been empty for
// delete_idle_time. The leader proposes it; the FSM decides from the
// state, so a new leader resumes the idle clock where it was.
func (w *writer) resvIdle(r *model.Reservation, now int64) any {
	if r.DeleteIdleTime <= 0 || r.State != model.ResvRunning {
		return &ResvEventResult{}
	}
	empty := len(w.jobsInQueue(r.Queue)) == 0
	switch {
	case !empty && r.IdleSince != 0:
		r = r.Copy()
		r.IdleSince = 0
		w.putResv(r)
	case empty && r.IdleSince == 0:
		r = r.Copy()
		r.IdleSince = now
		w.putResv(r)
	case empty && now >= r.IdleSince+r.DeleteIdleTime:
		why := fmt.Sprintf("Reservation %s deleted: idle for %d seconds (delete_idle_time)", r.ID, r.DeleteIdleTime)
		w.dropResvProvisioning(r, now)
		r = r.Copy()
		r.State, r.Substate = model.ResvDeleted, model.ResvDeleted
		r.Gone, r.Mtime = now, now
		r.Comment = why
		w.setResvQueue(r.Queue, false, false, true)
		w.putResv(r)
		return &ResvEventResult{Done: true}
	}
	return &ResvEventResult{}
}

// resvFromJob makes the reservation of a job submitted with -W
// create_resv_from_job=true when it starts: its vnodes and amounts, from
// now for its walltime, running at once, with the job moved into its
// queue. A job without walltime gets none (the period would be unknown);
// its comment says so.
func (w *writer) resvFromJob(j *model.Job, now int64) {
	if !j.CreateResvFromJob() || model.IsResvQueue(j.Queue) {
		return
	}
	dur, err := model.ParseDuration(j.ResourceList["walltime"])
	if err != nil || dur <= 0 {
		j = j.Copy()
		j.Comment += "; no reservation created: the job has no walltime"
		w.putJob(j)
		return
	}
	w.jobResv(j, "", now, now+dur, now)
}

// submitRunningJobResv is pbs_rsub --job <running job> (checked by the
// server): a reservation of the job's vnodes from now to the end of its
// walltime, running at once, the job moved in.
func (w *writer) submitRunningJobResv(c *SubmitResv) any {
	if c.Resv.Token != "" {
		if raw, _ := w.txn.First(tableResvs, "token", c.Resv.Token); raw != nil {
			return raw.(*model.Reservation).ID
		}
	}
	j := w.job(c.Resv.QmoveJob)
	if j == nil || !j.IsRunning() || model.IsResvQueue(j.Queue) || c.Resv.End <= c.Now {
		return model.Err(model.PBSEBadState)
	}
	return w.jobResv(j, c.Resv.Token, c.Now, c.Resv.End, c.Now)
}

// jobResv creates the running reservation of running job j over [start,
// end) and moves the job into its queue; it returns the reservation id.
func (w *writer) jobResv(j *model.Job, token string, start, end, now int64) any {
	dur := end - start
	r := &model.Reservation{
		Name: j.Name, Owner: j.Owner, User: j.User, Token: token,
		Start: start, End: end, Duration: dur,
		ResourceList:    map[string]string{"select": j.Select.String(), "place": j.Place.String(), "walltime": model.FormatDuration(dur)},
		Select:          j.Select,
		Place:           j.Place,
		AOE:             model.SelectAOE(j.Select),
		AuthorizedUsers: []string{j.Owner},
	}
	if n := j.ResourceList["ncpus"]; n != "" {
		r.ResourceList["ncpus"] = n
	}
	id, _ := w.submitResv(&SubmitResv{Resv: r, Now: now}).(string)
	r = w.resv(id)
	if r == nil {
		return model.Errorf(model.PBSESystem, "reservation from job %s not stored", j.ID)
	}
	r = r.Copy()
	r.Nodes = append([]model.ExecChunk(nil), j.Exec...)
	r.State, r.Substate = model.ResvRunning, model.ResvRunning
	r.Provisioned = true // the job's own start provisioned its vnodes
	r.QmoveJob = j.ID
	r.DeleteIdleTime = model.DefaultDeleteIdleTime
	r.Comment = fmt.Sprintf("Reservation created from job %s at %s", j.ID, pbsTime(now))
	w.setResvQueue(r.Queue, true, true, false)
	w.putResv(r)
	j = j.Copy()
	j.Queue = r.Queue
	j.SetCreateResvFromJob(false)
	w.note(j, now, "Job moved to queue %s: reservation %s created from the job", r.Queue, r.ID)
	w.putJob(j)
	return r.ID
}
