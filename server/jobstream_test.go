package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

// oldExpandSubjobs is the expansion qstat -t made before the reply was
// streamed: the reference the streamed reply must equal byte for byte.
func oldExpandSubjobs(snap *raftstore.StateSnapshot, p *model.Job, from, to, step int64) []*model.Job {
	a := p.Array
	rows := map[int64]*model.Job{}
	for _, s := range snap.Subjobs(p.ID) {
		rows[s.ArrayIndex()] = s
	}
	lo, hi, ok := a.OrdinalRange(from, to)
	if !ok {
		return nil
	}
	var out []*model.Job
	for o := lo; o <= hi; o++ {
		idx := a.Index(o)
		if (idx-from)%step != 0 {
			continue
		}
		if s, ok := rows[idx]; ok {
			out = append(out, s)
			continue
		}
		var s *model.Job
		switch {
		case a.Queued.Contains(o):
			s = p.NewSubjob(idx)
			if p.State == model.StateHeld || p.State == model.StateWaiting {
				s.State, s.Substate = p.State, p.Substate
			}
		case a.Done.Contains(o):
			s = p.NewSubjob(idx)
			s.State, s.Substate = model.StateExpired, model.SubExpired
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// TestStreamedJobsReplyIsByteIdentical builds arrays in every state a
// subjob can be in (queued, held with its parent, running, finished as a
// compact record, deleted while queued) through a real FSM and compares
// the streamed reply with json.Encoder's encoding of the whole
// api.JobsResponse made the old way, for whole arrays and ranges.
func TestStreamedJobsReplyIsByteIdentical(t *testing.T) {
	f, err := raftstore.NewFSM(log.New(io.Discard, "", 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	var index uint64
	apply := func(c raftstore.Command) any {
		data, err := raftstore.Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		index++
		return f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: data})
	}
	defs := model.BuiltinResources()
	apply(&raftstore.SetServerConfig{Now: 1, Config: model.ServerConfig{
		Name: "svr", Defs: defs, DefaultQueue: "workq", JobHistoryEnable: true, MaxArraySize: 100000,
		Queues: map[string]model.QueueConfig{"workq": {Name: "workq", Enabled: true, Started: true}},
	}})
	apply(&raftstore.RegisterHost{Host: "n1", BootID: "b", Now: 2, Vnodes: []*model.Vnode{{
		Name: "n1", Available: map[string]string{"ncpus": "64", "mem": "4gb", "host": "n1", "vnode": "n1"},
	}}})
	sel, _ := model.ParseSelect("1:ncpus=1", defs)
	submit := func(tok, spec, hold string) string {
		a, err := model.ParseArraySpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		j := &model.Job{Name: "arr", User: "alice", Owner: "alice@h", Queue: "workq", Token: tok, Rerun: true, Hold: hold,
			Select: sel, ResourceList: map[string]string{"ncpus": "1"}, Script: "true", SubmitHost: "h", Array: a,
			Env: []model.EnvVar{{Name: "PBS_O_WORKDIR", Value: "/home/alice"}}}
		return apply(&raftstore.SubmitJob{Job: j, Now: 100}).(string)
	}
	pid := submit("a", "1-40:2", "")
	held := submit("b", "0-9", "u")
	exec := []model.ExecChunk{{Shares: []model.VnodeShare{{Vnode: "n1", Host: "n1", Amounts: map[string]float64{"ncpus": 1}}}}}
	for i := int64(1); i <= 15; i += 2 {
		id := model.SubjobID(pid, i)
		apply(&raftstore.ApplyPlan{Now: 200 + i, Runs: []model.RunDecision{{JobID: id, Exec: exec}}})
		apply(&raftstore.JobEvents{Host: "n1", Now: 201 + i, Events: []model.JobEvent{{JobID: id, Kind: "started", Run: 1, SessionID: int(i)}}})
		if i < 11 {
			apply(&raftstore.JobEvents{Host: "n1", Now: 203 + i, Events: []model.JobEvent{{JobID: id, Kind: "ended", Run: 1, Exit: int(i % 2),
				Used: map[string]string{"walltime": "00:00:02"}}}})
		}
	}
	apply(&raftstore.DeleteJob{JobID: model.SubjobID(pid, 21), Requestor: "alice@h", Now: 300})
	apply(&raftstore.DeleteJob{JobID: pid[:len(pid)-len("[].svr")] + "[25-29].svr", Requestor: "alice@h", Now: 301})

	snap := f.State().Snapshot()
	states := map[string]int{}
	for _, p := range []string{pid, held} {
		eachSubjob(snap, snap.Job(p), 0, 1000, 1, func(s *model.Job) error {
			states[s.State]++
			return nil
		})
	}
	if states["Q"] == 0 || states["R"] == 0 || states["X"] != 9 || states["H"] != 10 {
		t.Fatalf("subjob states covered: %v", states)
	}
	info := api.ServerInfo{Name: "svr", TotalJobs: 2}
	for _, c := range []struct {
		parent         string
		from, to, step int64
	}{{pid, 1, 39, 1}, {pid, 3, 31, 4}, {pid, 0, 1000, 3}, {held, 0, 9, 1}, {pid, 14, 14, 1}} {
		p := snap.Job(c.parent)
		old := append([]*model.Job{p}, oldExpandSubjobs(snap, p, c.from, c.to, c.step)...)
		statuses := make([]*api.JobStatus, len(old))
		for i, j := range old {
			statuses[i] = api.NewJobStatus(j)
		}
		var want, got bytes.Buffer
		json.NewEncoder(&want).Encode(api.JobsResponse{Server: info, Jobs: statuses})
		reply := &jobsReply{snap: snap, server: info, parts: []jobPart{onePart(p), subjobsPart(p, c.from, c.to, c.step)}}
		if err := reply.writeJSON(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Fatalf("%s [%d-%d:%d]: streamed reply differs\nwant %s\ngot  %s", c.parent, c.from, c.to, c.step, want.Bytes(), got.Bytes())
		}
	}
	// No jobs: "jobs":[] as before, never null.
	var want, got bytes.Buffer
	json.NewEncoder(&want).Encode(api.JobsResponse{Server: info, Jobs: []*api.JobStatus{}})
	(&jobsReply{snap: snap, server: info}).writeJSON(&got)
	if !bytes.Equal(want.Bytes(), got.Bytes()) {
		t.Fatalf("empty reply: want %s got %s", want.Bytes(), got.Bytes())
	}
}
