package pbscmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/schedglue"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// storedJobs are jobs as a real FSM stores them (submitted as qsub would,
// one scheduling cycle applied), passed through the JSON of the jobs
// response as qstat receives them. The state store's compact job
// representation (interned strings, shared select and Variable_List) must
// not change one byte of what qstat -f prints.
func storedJobs(t *testing.T) []*model.Job {
	t.Helper()
	h, err := schedglue.NewHarness(model.ServerConfig{Name: "pbssvr", DefaultQueue: "workq",
		Queues:           map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}},
		JobHistoryEnable: true, MaxArraySize: 10000})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(c raftstore.Command) any {
		t.Helper()
		res, err := h.Apply(c)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	apply(&raftstore.RegisterHost{Host: "node01", BootID: "b", Now: 1_700_000_000, Vnodes: []*model.Vnode{{Name: "node01",
		Available: map[string]string{"ncpus": "8", "mem": "16gb", "host": "node01", "vnode": "node01"}}}})
	defs := model.BuiltinResources()
	env := []model.EnvVar{{Name: "PBS_O_HOME", Value: "/home/alice"}, {Name: "PBS_O_LOGNAME", Value: "alice"},
		{Name: "PBS_O_PATH", Value: "/usr/bin:/bin"}, {Name: "PBS_O_SHELL", Value: "/bin/bash"},
		{Name: "PBS_O_HOST", Value: "login1"}, {Name: "PBS_O_WORKDIR", Value: "/home/alice/run"},
		{Name: "MSG", Value: "a,b=c"}}
	submit := func(i int, sel, place string, extra func(j *model.Job)) string {
		s, err := model.ParseSelect(sel, defs)
		if err != nil {
			t.Fatal(err)
		}
		p := model.Place{Arrangement: model.PlaceFree}
		if place != "" {
			if p, err = model.ParsePlace(place); err != nil {
				t.Fatal(err)
			}
		}
		j := &model.Job{Name: fmt.Sprintf("job%d", i), Owner: "alice@login1", User: "alice", Group: "users",
			UID: 1000, GID: 100, Queue: "workq", Hold: "n", Join: "oe", Keep: "n", Rerun: true,
			Project: "_pbs_project_default", Mail: "a", Checkpt: "u", Select: s, Place: p,
			ResourceList: map[string]string{"ncpus": "1", "nodect": "1", "select": sel, "place": p.String(), "walltime": "01:00:00"},
			Env:          append([]model.EnvVar(nil), env...), Script: "#!/bin/sh\nsleep 1\n",
			SubmitArgs: "-l select=" + sel + " job.sh", SubmitHost: "login1", Token: fmt.Sprint("tok", i)}
		if extra != nil {
			extra(j)
		}
		id, _ := apply(&raftstore.SubmitJob{Job: j, Now: 1_700_000_000 + int64(i)}).(string)
		return id
	}
	first := submit(1, "1:ncpus=2:mem=1gb", "", nil)
	submit(2, "2:ncpus=4", "scatter:excl", nil)
	submit(3, "1:ncpus=1", "", func(j *model.Job) { j.Hold = "u"; j.Priority = 10; j.Account = "proj7" })
	submit(4, "1:ncpus=1", "", func(j *model.Job) {
		j.SetDepend("afterok:" + first)
		j.SetDeps([]model.Dep{{Type: "afterok", Job: first}})
	})
	submit(5, "1:ncpus=1", "", func(j *model.Job) {
		arr, err := model.ParseArraySpec("1-3")
		if err != nil {
			t.Fatal(err)
		}
		j.Array = arr
	})
	if _, err := h.Cycle(1_700_000_100); err != nil {
		t.Fatal(err)
	}
	var out []*model.Job
	for _, j := range h.State().Jobs() {
		b, err := json.Marshal(api.NewJobStatus(j))
		if err != nil {
			t.Fatal(err)
		}
		var back model.Job
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		out = append(out, &back)
	}
	return out
}

// TestQstatFullGolden holds qstat -f of stored jobs byte-identical to
// testdata/qstat_full.golden (go test -run TestQstatFullGolden -update
// rewrites it, for a deliberate change of the output only).
func TestQstatFullGolden(t *testing.T) {
	t.Setenv("TZ", "UTC")
	srv := &fakeServer{jobs: storedJobs(t), info: apiInfo()}
	tio, code := runQstat(t, srv, "-f", "-x")
	if code != 0 {
		t.Fatalf("qstat -f exit %d: %s", code, tio.stderr)
	}
	golden := filepath.Join("testdata", "qstat_full.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, tio.stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := tio.stdout.String(); got != string(want) {
		t.Errorf("qstat -f changed:\n got:\n%s\nwant:\n%s", got, want)
	}
}
