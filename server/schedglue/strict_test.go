package schedglue

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestStrictOrderingWithQueueDefaultWalltime: under strict_ordering with
// backfill_depth 1, a job without a walltime of its own is planned with
// its queue's resources_default.walltime (over the server's). Host n1 has
// 5 CPUs; "big" (3 CPUs, no walltime) runs first; "top" (5 CPUs) waits
// for it and is the top job; "short" (1 CPU, 30 min) backfills when it
// ends before top's planned start; "long" (1 CPU, 2 h) would delay it.
func TestStrictOrderingWithQueueDefaultWalltime(t *testing.T) {
	const t0, t1 = 1000, 1010
	for _, tc := range []struct {
		name          string
		server, queue string // resources_default.walltime
		wantTop       int64  // top job's estimated.start_time, 0 for none
		shortRuns     bool
		longRuns      bool
	}{
		{name: "queue default 1h: short backfills, long waits", queue: "01:00:00",
			wantTop: t0 + 3600, shortRuns: true},
		{name: "queue default over the server's", server: "00:10:00", queue: "01:00:00",
			wantTop: t0 + 3600, shortRuns: true},
		{name: "server default 20 min: short would delay top too", server: "00:20:00",
			wantTop: t0 + 1200},
		{name: "queue default 3h: long fits too", queue: "03:00:00",
			wantTop: t0 + 3*3600, shortRuns: true, longRuns: true},
		{name: "no default: big's end unknown, so top has no planned start and holds nothing",
			shortRuns: true, longRuns: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := startedQueue("workq", 0, "")
			q.ResourcesDefault = map[string]string{}
			if tc.queue != "" {
				q.ResourcesDefault["walltime"] = tc.queue
			}
			cfg := model.ServerConfig{
				Queues:           map[string]model.QueueConfig{"workq": q},
				ResourcesDefault: map[string]string{},
				Sched:            model.SchedConfig{StrictOrdering: true, BackfillDepth: 1},
			}
			if tc.server != "" {
				cfg.ResourcesDefault["walltime"] = tc.server
			}
			f := newFixture(t, cfg)
			f.host("n1", "ncpus=5", "")
			// Jobs are stored as submitted; queue defaults are the server's
			// admission (not this package), so Resource_List has no walltime.
			big := f.submit(job{sel: "1:ncpus=3"}, 100)
			f.cycle(t0)
			if got, want := f.seen(big), (seen{State: "R/41", ExecVnode: "(n1:ncpus=3)", Comment: ran(t0, "(n1:ncpus=3)")}); got != want {
				t.Fatalf("big: %+v, want %+v", got, want)
			}
			top := f.submit(job{sel: "1:ncpus=5"}, 200)
			short := f.submit(job{sel: "1:ncpus=1", res: map[string]string{"walltime": "00:30:00"}}, 201)
			long := f.submit(job{sel: "1:ncpus=1", res: map[string]string{"walltime": "02:00:00"}}, 202)
			f.cycle(t1)
			for _, c := range []struct {
				name, id string
				runs     bool
			}{{"short", short, tc.shortRuns}, {"long", long, tc.longRuns}} {
				want := seen{State: "Q/10", Comment: "Not Running: Job would conflict with reservation or top job"}
				if c.runs {
					want = seen{State: "R/41", ExecVnode: "(n1:ncpus=1)", Comment: ran(t1, "(n1:ncpus=1)")}
				}
				if got := f.seen(c.id); got != want {
					t.Errorf("%s: %+v, want %+v", c.name, got, want)
				}
			}
			want := seen{State: "Q/10", Comment: "Not Running: Insufficient amount of resource: ncpus (R: 5 A: 2 T: 5)", EstStart: tc.wantTop}
			if got := f.seen(top); got != want {
				t.Errorf("top: %+v, want %+v", got, want)
			}
		})
	}
}
