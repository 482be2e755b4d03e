package scheduler

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// altered makes r a reservation being altered to [start, end) with sel,
// its current values saved as the ones to go back to.
func altered(t testing.TB, r *model.Reservation, sel string, start, end int64) *model.Reservation {
	t.Helper()
	r.SaveAlter(false, "alice@h")
	s, err := model.ParseSelect(sel, testDefs)
	if err != nil {
		t.Fatal(err)
	}
	r.Select, r.Start, r.End, r.Duration = s, start, end, end-start
	r.State = model.ResvBeingAltered
	return r
}

func TestResvAlterKeepsVnodesMovesOrDenies(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")}
	s := snapshot(vs)
	s.Now = now
	other := resv(t, 20, "1:ncpus=2", now+3000, now+4000, model.ResvConfirmed, "n2")
	s.Reservations = []*model.Reservation{
		other,
		// Longer on the same vnode: n1 is free, it stays there.
		altered(t, resv(t, 10, "1:ncpus=2", now+1000, now+2000, model.ResvConfirmed, "n1"), "1:ncpus=2", now+1000, now+2500),
		// Grown to both vnodes over a window the other one holds: denied.
		altered(t, resv(t, 11, "1:ncpus=1", now+5000, now+6000, model.ResvConfirmed, "n1"), "2:ncpus=2", now+2500, now+3500),
	}
	d := decisions(Schedule(s))
	if r := d["R10.svr"]; !r.Confirm || execOf(model.RunDecision{Exec: r.Nodes}) != "(n1:ncpus=2)" {
		t.Errorf("R10 extended in place: %+v", r)
	}
	if r := d["R11.svr"]; r.Confirm || r.Reason != resvFailPrefix+msgResvNoFit {
		t.Errorf("R11 grown into the other reservation: %+v", r)
	}
	// A new reservation in the same cycle sees R11's old hold (n1, later)
	// and R10's new one.
	s.Reservations = append(s.Reservations, resv(t, 12, "1:ncpus=2", now+2200, now+2400, model.ResvUnconfirmed))
	s.Reservations[2] = altered(t, resv(t, 11, "1:ncpus=1", now+5000, now+6000, model.ResvConfirmed, "n1"), "2:ncpus=2", now+2500, now+3500)
	s.Reservations[1] = altered(t, resv(t, 10, "1:ncpus=2", now+1000, now+2000, model.ResvConfirmed, "n1"), "1:ncpus=2", now+1000, now+2500)
	d = decisions(Schedule(s))
	if r := d["R12.svr"]; !r.Confirm || execOf(model.RunDecision{Exec: r.Nodes}) != "(n2:ncpus=2)" {
		t.Errorf("R12 next to the altered R10: %+v", r)
	}
}

func TestResvAlterRunningExtendedOnlyWhereFree(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2")}
	m := byName(vs)
	in := runningOn(m, "1.svr", now-100, 5000, 1, false, "n1")
	in.Queue = "R10"
	s := snapshot(vs)
	s.Now = now
	s.Running = []*model.Job{in}
	later := resv(t, 20, "1:ncpus=1", now+3000, now+4000, model.ResvConfirmed, "n1")
	run := func(end int64) model.ResvDecision {
		r := altered(t, resv(t, 10, "1:ncpus=2", now-100, now+1000, model.ResvRunning, "n1"), "1:ncpus=2", now-100, end)
		s.Reservations = []*model.Reservation{later, r}
		return decisions(Schedule(s))["R10.svr"]
	}
	if d := run(now + 500); !d.Confirm {
		t.Errorf("shortened: %+v", d)
	}
	if d := run(now + 2000); !d.Confirm {
		t.Errorf("extended into free time: %+v", d)
	}
	// R10 holds both cpus of n1, its job uses one; from now+3000 the later
	// reservation holds the other, so R10 cannot keep both.
	if d := run(now + 3500); d.Confirm {
		t.Errorf("extended over the later reservation: %+v", d)
	}
}

func TestResvAlterStandingChecksLaterOccurrences(t *testing.T) {
	vs := []*model.Vnode{vnode("n1", "ncpus=2"), vnode("n2", "ncpus=2")}
	s := snapshot(vs)
	s.Now = now
	st := resv(t, 10, "1:ncpus=2", now+1000, now+1100, model.ResvConfirmed, "n1")
	st.ID, st.Queue = "S10.svr", "S10"
	st.Occurrences, st.Index = []int64{now + 1000, now + 5000}, 1
	// n1 is taken from now+1200 (so the current occurrence must move to
	// n2) and n2 at the second occurrence: no vnode holds both.
	s.Reservations = []*model.Reservation{
		resv(t, 20, "1:ncpus=2", now+1200, now+1300, model.ResvConfirmed, "n1"),
		resv(t, 21, "1:ncpus=2", now+5000, now+5100, model.ResvConfirmed, "n2"),
		altered(t, st, "1:ncpus=2", now+1000, now+1250),
	}
	if d := decisions(Schedule(s))["S10.svr"]; d.Confirm {
		t.Errorf("moved where a later occurrence does not fit: %+v", d)
	}
}
