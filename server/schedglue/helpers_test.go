package schedglue

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
)

// fixture is a Harness that fails the test on any refused command.
type fixture struct {
	t *testing.T
	*Harness
	tokens int
}

func newFixture(t *testing.T, cfg model.ServerConfig) *fixture {
	t.Helper()
	if cfg.Queues == nil {
		cfg.Queues = map[string]model.QueueConfig{"workq": startedQueue("workq", 0, "")}
	}
	h, err := NewHarness(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, Harness: h}
}

func (f *fixture) apply(c raftstore.Command) any {
	f.t.Helper()
	res, err := f.Apply(c)
	if err != nil {
		f.t.Fatal(err)
	}
	return res
}

func startedQueue(name string, prio int, maxRun string) model.QueueConfig {
	return model.QueueConfig{Name: name, Enabled: true, Started: true, Priority: prio, MaxRun: maxRun}
}

// host registers a host with one vnode of its name. avail is
// resources_available as "ncpus=2,aoe=os1+os2" ('+' separates values of
// one resource, as ',' separates resources); current is the AOE it runs.
func (f *fixture) host(name, avail, current string) {
	f.t.Helper()
	v := &model.Vnode{Name: name, CurrentAOE: current, ProvisionEnable: strings.Contains(avail, "aoe="),
		Available: map[string]string{"mem": "4gb", "host": name, "vnode": name}}
	for _, kv := range strings.Split(avail, ",") {
		k, val, _ := strings.Cut(kv, "=")
		v.Available[k] = strings.ReplaceAll(val, "+", ",")
	}
	f.apply(&raftstore.RegisterHost{Host: name, BootID: "b1", Now: 10, Vnodes: []*model.Vnode{v}})
}

// job describes a submission: owner, queue (default workq), select,
// Resource_List extras, priority.
type job struct {
	user, group, queue, sel string
	res                     map[string]string
	prio                    int
}

// submit stores a queued job at time now and returns its id.
func (f *fixture) submit(j job, now int64) string {
	f.t.Helper()
	sel, err := model.ParseSelect(j.sel, model.BuiltinResources())
	if err != nil {
		f.t.Fatal(err)
	}
	user, queue := j.user, j.queue
	if user == "" {
		user = "alice"
	}
	if queue == "" {
		queue = "workq"
	}
	group := j.group
	if group == "" {
		group = "users"
	}
	rl := map[string]string{}
	for k, v := range j.res {
		rl[k] = v
	}
	f.tokens++
	mj := &model.Job{
		Name: "job", User: user, Owner: user + "@h", Group: group, Queue: queue,
		Token: fmt.Sprintf("tok%d", f.tokens), Select: sel, ResourceList: rl, Priority: j.prio,
		Script: "true", SubmitHost: "h", Rerun: true,
	}
	id, ok := f.apply(&raftstore.SubmitJob{Job: mj, Now: now}).(string)
	if !ok {
		f.t.Fatal("submit returned no id")
	}
	return id
}

// cycle runs one scheduling cycle at now, applied through the FSM.
func (f *fixture) cycle(now int64) {
	f.t.Helper()
	res, err := f.Cycle(now)
	if err != nil {
		f.t.Fatal(err)
	}
	if res.Started > len(res.Plan.Runs) {
		f.t.Fatalf("FSM started %d jobs of %d run decisions", res.Started, len(res.Plan.Runs))
	}
}

// seen is what qstat -f shows of a job that these tests look at.
type seen struct {
	State     string // job_state and substate, "R/42"
	ExecVnode string
	Comment   string
	EstStart  int64 // estimated.start_time, 0 when unset
}

func (f *fixture) seen(id string) seen {
	f.t.Helper()
	s := f.State()
	j := s.Job(id)
	if j == nil {
		f.t.Fatalf("no job %s", id)
	}
	cfg := s.Config()
	return seen{State: fmt.Sprintf("%s/%d", j.State, j.Substate), ExecVnode: j.ExecVnode(cfg.Defs), Comment: j.Comment, EstStart: j.EstStart()}
}

// ran is the comment the FSM writes on a job it starts (qstat's comment
// "Job run at Thu Jan 01 at 00:16 on (n1:ncpus=1)").
func ran(now int64, exec string) string {
	return "Job run at " + pbsTime(now) + " on " + exec
}

// pbsTime is the FSM's time in comments, "Thu Jan 01 at 00:16".
func pbsTime(now int64) string { return time.Unix(now, 0).Format("Mon Jan 02 at 15:04") }

// configure changes the replicated configuration as qmgr does.
func (f *fixture) configure(change func(*model.ServerConfig)) {
	f.t.Helper()
	cfg := f.State().Config()
	change(&cfg)
	f.apply(&raftstore.SetServerConfig{Config: cfg, Now: 20})
}
