package scheduler

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

func softWalltime(secs int64) jobOpt {
	return func(j *model.Job) {
		if j.ResourceList == nil {
			j.ResourceList = map[string]string{}
		}
		j.ResourceList["soft_walltime"] = model.FormatDuration(secs)
	}
}

func TestExtendSoftWalltime(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		soft, est, hard, elapse int64
		want                    int64
	}{
		{"not yet passed", 100, 0, 1000, 50, 100},
		{"exactly at it: not passed", 100, 0, 1000, 100, 100},
		{"passed once: +100%", 100, 0, 1000, 101, 200},
		{"passed three times", 100, 0, 1000, 350, 400},
		{"capped at walltime", 100, 0, 250, 240, 250},
		{"past walltime stays at walltime", 100, 0, 250, 900, 250},
		{"no walltime: no cap", 100, 0, 0, 950, 1000},
		{"earlier estimate kept while not passed", 100, 300, 1000, 150, 300},
		{"earlier estimate passed", 100, 300, 1000, 301, 400},
		{"no soft walltime", 0, 0, 1000, 500, 0},
	} {
		if got := model.ExtendSoftWalltime(tc.soft, tc.est, tc.hard, tc.elapse); got != tc.want {
			t.Errorf("%s: ExtendSoftWalltime(%d, %d, %d, %d) = %d, want %d", tc.name, tc.soft, tc.est, tc.hard, tc.elapse, got, tc.want)
		}
	}
}

// TestSoftWalltimeCalendar: the calendar plans with soft walltimes, for
// running jobs (extended once passed) and queued ones (top jobs and
// backfill), as OpenPBS's test_topjob and test_filler_job describe.
func TestSoftWalltimeCalendar(t *testing.T) {
	type want struct {
		topStart int64  // estimated start of job 2 (0: none)
		ran      string // job that must have run ("" none)
		notRan   string
		extended int64 // estimated.soft_walltime recorded for "r1" (0: none)
	}
	for _, tc := range []struct {
		name    string
		elapsed int64 // how long r1 has run
		r1Soft  int64
		r1Est   int64
		filler  []jobOpt
		want    want
	}{
		{name: "running job ends at its soft walltime", elapsed: 10, r1Soft: 150,
			want: want{topStart: now - 10 + 150}},
		{name: "soft walltime passed: extended by 100%", elapsed: 160, r1Soft: 150,
			want: want{topStart: now - 160 + 300, extended: 300}},
		{name: "passed twice", elapsed: 301, r1Soft: 150,
			want: want{topStart: now - 301 + 450, extended: 450}},
		{name: "extension already recorded is not repeated", elapsed: 160, r1Soft: 150, r1Est: 300,
			want: want{topStart: now - 160 + 300}},
		{name: "extension capped at walltime", elapsed: 590, r1Soft: 400,
			want: want{topStart: now - 590 + 600, extended: 600}},
		{name: "no soft walltime: walltime", elapsed: 10,
			want: want{topStart: now - 10 + 600}},
		{name: "filler backfills by its soft walltime", elapsed: 10, r1Soft: 150,
			filler: []jobOpt{walltime(450), softWalltime(100)},
			want:   want{topStart: now - 10 + 150, ran: jobID(3)}},
		{name: "filler whose soft walltime reaches the top job waits", elapsed: 10, r1Soft: 150,
			filler: []jobOpt{walltime(450), softWalltime(200)},
			want:   want{topStart: now - 10 + 150, notRan: jobID(3)}},
		{name: "filler without soft walltime is held by its walltime", elapsed: 10, r1Soft: 150,
			filler: []jobOpt{walltime(450)},
			want:   want{topStart: now - 10 + 150, notRan: jobID(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := []*model.Vnode{vnode("n1", "ncpus=2")}
			r1 := runningOn(byName(vs), "r1", now-tc.elapsed, 600, 1, false, "n1")
			if tc.r1Soft > 0 {
				softWalltime(tc.r1Soft)(r1)
			}
			r1.SetEstSoftWalltime(tc.r1Est)
			jobs := []*model.Job{job(t, 2, "1:ncpus=2", "", walltime(300))}
			if tc.filler != nil {
				jobs = append(jobs, job(t, 3, "1:ncpus=1", "", tc.filler...))
			}
			s := strict(snapshot(vs, jobs...), 1)
			s.Running = []*model.Job{r1}
			p := Schedule(s)
			if got := estimates(p)[jobID(2)].Start; got != tc.want.topStart {
				t.Errorf("top job estimated start = %d, want %d", got, tc.want.topStart)
			}
			r := runs(p)
			if tc.want.ran != "" && r[tc.want.ran] == "" {
				t.Errorf("%s did not run: %v", tc.want.ran, comments(p)[tc.want.ran])
			}
			if tc.want.notRan != "" && r[tc.want.notRan] != "" {
				t.Errorf("%s ran on %s", tc.want.notRan, r[tc.want.notRan])
			}
			var ext int64
			for _, sw := range p.SoftWalltimes {
				if sw.JobID == "r1" {
					ext = sw.Seconds
				}
			}
			if ext != tc.want.extended {
				t.Errorf("estimated.soft_walltime = %d, want %d (%v)", ext, tc.want.extended, p.SoftWalltimes)
			}
		})
	}
}

// TestSoftWalltimeTopJobChain: top jobs with soft walltimes follow each
// other by their soft walltimes (OpenPBS test_topjob2).
func TestSoftWalltimeTopJobChain(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=1")}
	r1 := runningOn(byName(vs), "r1", now, 300, 1, false, "n1")
	softWalltime(150)(r1)
	s := strict(snapshot(vs,
		job(t, 2, "1:ncpus=1", "", walltime(300), softWalltime(150)),
		job(t, 3, "1:ncpus=1", "", walltime(300), softWalltime(150)),
		job(t, 4, "1:ncpus=1", "", walltime(300)),
		job(t, 5, "1:ncpus=1", "", walltime(300)),
	), 4)
	s.Running = []*model.Job{r1}
	est := estimates(Schedule(s))
	for id, want := range map[int64]int64{2: now + 150, 3: now + 300, 4: now + 450, 5: now + 750} {
		if got := est[jobID(id)].Start; got != want {
			t.Errorf("job %d: estimated start %d, want %d", id, got-now, want-now)
		}
	}
}

// TestSoftWalltimeReservations: reservations are protected by walltime,
// not by soft walltime (OpenPBS test_resv_conf_soft_with_hard,
// test_resv_job_soft and test_resv_job_soft_hard).
func TestSoftWalltimeReservations(t *testing.T) {
	t.Run("confirmation sees running jobs until their walltime", func(t *testing.T) {
		vs := []*model.Vnode{vnode("n1", "ncpus=4")}
		r1 := runningOn(byName(vs), "r1", now, 120, 4, false, "n1")
		softWalltime(5)(r1)
		s := snapshot(vs)
		s.Now = now
		s.Running = []*model.Job{r1}
		s.Reservations = []*model.Reservation{resv(t, 10, "1:ncpus=1", now+60, now+250, model.ResvUnconfirmed)}
		if d := decisions(Schedule(s))["R10.svr"]; d.Confirm {
			t.Errorf("reservation confirmed inside a running job's walltime: %+v", d)
		}
	})
	for _, tc := range []struct {
		name string
		opts []jobOpt
		runs bool
	}{
		{"soft walltime, no walltime: never before a reservation", []jobOpt{softWalltime(60)}, false},
		{"soft walltime before it, walltime into it", []jobOpt{softWalltime(60), walltime(150)}, false},
		{"walltime before it", []jobOpt{softWalltime(60), walltime(100)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := []*model.Vnode{vnode("n1", "ncpus=4")}
			s := snapshot(vs, job(t, 1, "1:ncpus=4", "", tc.opts...))
			s.Now = now
			s.Reservations = []*model.Reservation{resv(t, 10, "1:ncpus=4", now+120, now+240, model.ResvConfirmed, "n1")}
			p := Schedule(s)
			if ran := runs(p)[jobID(1)] != ""; ran != tc.runs {
				t.Errorf("ran = %v, want %v (%v)", ran, tc.runs, comments(p)[jobID(1)])
			}
		})
	}
}
