package raftstore

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestEventLogLines: committed entries describe themselves in PBS's server
// log words, each line tagged with its entry's index: a job's life, a
// vnode going down, a qmgr change with its values and who asked.
func TestEventLogLines(t *testing.T) {
	h := newHarness(t)
	var got []model.LogEvent
	h.fsm.OnEvents(func(evs []model.LogEvent) { got = append(got, evs...) })
	registerNode(h, "node1", "4")
	j := testJob("a")
	j.Owner = "alice@login1"
	id := h.apply(&SubmitJob{Job: j, Now: 100}).(string)
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "node1", Host: "node1", Amounts: map[string]float64{"ncpus": 2}}}}}
	h.apply(&ApplyPlan{Now: 200, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
	h.apply(&JobEvents{Host: "node1", Now: 300, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: 0}}})
	h.apply(&HostDown{Host: "node1", Now: 400, Comment: "node down: communication closed"})
	h.apply(&Manage{Now: 500, Requestor: "root@srv", Request: model.ManagerRequest{Verb: "set", Object: "server",
		Attrs: []model.ManagerAttr{{Name: "scheduling", Op: "=", Value: "False"}}}})

	want := []struct {
		typ       int
		class, id string
		msg       string
		time      int64
	}{
		{model.LogJob, "Job", id, "Job Queued at request of alice@login1, owner = alice@login1, job name = job, queue = workq", 100},
		{model.LogJob, "Job", id, "Job Run at request of Scheduler on exec_vnode (node1:ncpus=2)", 200},
		{model.LogJobUsage, "Job", id, "Exit_status=0", 300},
		{model.LogSystem, "Node", "node1", "state changed from free to down: node down: communication closed", 400},
		{model.LogAdmin, "Svr", "server", "set server scheduling = False at request of root@srv", 500},
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Class+";"+e.ID+";"+e.Msg)
	}
	for _, w := range want {
		found := false
		for _, e := range got {
			if e.Type == w.typ && e.Class == w.class && e.ID == w.id && strings.HasPrefix(e.Msg, w.msg) && e.Time == w.time && e.Index > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("no event %+v among\n%s", w, strings.Join(lines, "\n"))
		}
	}
}
