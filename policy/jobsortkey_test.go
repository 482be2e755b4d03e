package policy

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestParseJobSortKey(t *testing.T) {
	cases := []struct {
		in   string
		want JobSortKey
		bad  string
	}{
		{in: "ncpus HIGH", want: JobSortKey{"ncpus", true}},
		{in: `"walltime low" ALL`, want: JobSortKey{"walltime", false}},
		{in: "sort_priority High", want: JobSortKey{JobPriority, true}},
		{in: "job_priority LOW prime", want: JobSortKey{JobPriority, false}},
		{in: "ncpus UP", bad: "UP"},
		{in: "ncpus", bad: "ncpus"},
	}
	for _, tc := range cases {
		got, err := ParseJobSortKey(tc.in)
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: error %v should name %q", tc.in, err, tc.bad)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %+v %v, want %+v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseJobSortKeys([]string{"ncpus HIGH", "bogus LOW"}, model.BuiltinResources()); err == nil || !strings.Contains(err.Error(), "job_sort_key 2") {
		t.Errorf("unknown resource: %v", err)
	}
}

func sortJob(t *testing.T, id string, seq int64, queue string, prio int, sel, walltime string) *model.Job {
	t.Helper()
	s, err := model.ParseSelect(sel, model.BuiltinResources())
	if err != nil {
		t.Fatal(err)
	}
	return &model.Job{ID: id, Seq: seq, Queue: queue, Priority: prio, Select: s, Qtime: 100 + seq,
		ResourceList: map[string]string{"walltime": walltime}}
}

func TestJobSortKeysAndFormula(t *testing.T) {
	in := []*model.Job{
		sortJob(t, "1.s", 1, "a", 0, "1:ncpus=1", "01:00:00"),
		sortJob(t, "2.s", 2, "a", 5, "1:ncpus=8", "00:10:00"),
		sortJob(t, "3.s", 3, "b", 0, "2:ncpus=4", "02:00:00"),
		sortJob(t, "4.s", 4, "b", 5, "1:ncpus=1", "00:10:00"),
	}
	keys := func(lines ...string) []JobSortKey {
		k, err := ParseJobSortKeys(lines, model.BuiltinResources())
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	formula := func(s string) *Formula {
		f, err := ParseFormula(s)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	qp := map[string]int{"a": 1, "b": 2}
	cases := []struct {
		name string
		o    JobOrder
		want string
	}{
		{"default: priority then submission", JobOrder{}, "2.s 4.s 1.s 3.s"},
		{"ncpus HIGH", JobOrder{SortKeys: keys("ncpus HIGH")}, "2.s 3.s 1.s 4.s"},
		{"keys replace priority", JobOrder{SortKeys: keys("walltime LOW")}, "2.s 4.s 1.s 3.s"},
		{"two keys", JobOrder{SortKeys: keys("walltime LOW", "ncpus LOW")}, "4.s 2.s 1.s 3.s"},
		{"job_priority LOW", JobOrder{SortKeys: keys("job_priority LOW")}, "1.s 3.s 2.s 4.s"},
		{"formula", JobOrder{Formula: formula("ncpus*walltime")}, "3.s 2.s 1.s 4.s"},
		{"formula with queue_priority", JobOrder{Formula: formula("queue_priority"), QueuePriority: qp}, "4.s 3.s 2.s 1.s"},
		{"formula before keys", JobOrder{Formula: formula("queue_priority"), QueuePriority: qp, SortKeys: keys("ncpus LOW")}, "4.s 3.s 1.s 2.s"},
		{"eligible_time", JobOrder{Formula: formula("eligible_time"), Now: 200}, "1.s 2.s 3.s 4.s"},
		{"by_queue", JobOrder{ByQueue: true, QueuePriority: qp}, "4.s 3.s 2.s 1.s"},
	}
	for _, tc := range cases {
		if got := ids(tc.o.SortJobs(in)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestRoundRobin(t *testing.T) {
	var in []*model.Job
	seq := int64(0)
	for _, q := range []string{"a", "a", "a", "b", "c", "c", "hi", "hi"} {
		seq++
		in = append(in, sortJob(t, q+strings.Repeat("x", int(seq)), seq, q, 0, "1:ncpus=1", "1"))
	}
	o := JobOrder{RoundRobin: true, QueuePriority: map[string]int{"hi": 10}}
	got := ids(o.SortJobs(in))
	// "hi" is its own level; a, b, c share level 0 and alternate.
	want := "hixxxxxxx hixxxxxxxx ax bxxxx cxxxxx axx cxxxxxx axxx"
	if got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func ids(js []*model.Job) string {
	var out []string
	for _, x := range js {
		out = append(out, x.ID)
	}
	return strings.Join(out, " ")
}
