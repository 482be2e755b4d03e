package policy

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestSortJobs(t *testing.T) {
	j := func(id string, seq int64, queue string, prio int, qtime int64) *model.Job {
		return &model.Job{ID: id, Seq: seq, Queue: queue, Priority: prio, Qtime: qtime}
	}
	in := []*model.Job{
		j("5.s", 5, "low", 0, 50),
		j("3.s", 3, "workq", 0, 30),
		j("4.s", 4, "hi", 0, 40),
		j("1.s", 1, "workq", 0, 10),
		j("2.s", 2, "workq", 10, 20),
		j("7[10].s", 7, "workq", 0, 70),
		j("7[2].s", 7, "workq", 0, 70),
		j("6.s", 6, "beta", 0, 60),
	}
	qp := map[string]int{"hi": 100, "workq": 10, "beta": 10, "low": 0}
	ids := func(js []*model.Job) string {
		var out []string
		for _, x := range js {
			out = append(out, x.ID)
		}
		return strings.Join(out, " ")
	}
	cases := []struct {
		o    JobOrder
		want string
	}{
		{JobOrder{}, "2.s 1.s 3.s 4.s 5.s 6.s 7[2].s 7[10].s"},
		{JobOrder{ByQueue: true, QueuePriority: qp}, "4.s 6.s 2.s 1.s 3.s 7[2].s 7[10].s 5.s"},
	}
	for _, tc := range cases {
		got := tc.o.SortJobs(in)
		if ids(got) != tc.want {
			t.Errorf("byQueue=%v: got %s, want %s", tc.o.ByQueue, ids(got), tc.want)
		}
	}
	if in[0].ID != "5.s" {
		t.Fatal("SortJobs reordered its input")
	}
	o := JobOrder{}
	if !o.Less(in[3], in[1]) || o.Less(in[1], in[3]) {
		t.Fatal("Less disagrees with submission order")
	}
}
