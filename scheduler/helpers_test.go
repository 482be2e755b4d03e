package scheduler

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/policy"
)

// testDefs are the builtin resources plus a boolean and a string custom
// resource for matching tests.
var testDefs = model.BuiltinResources().With(
	model.ResourceDef{Name: "bigmem", Type: model.TypeBoolean, Flags: "h"},
	model.ResourceDef{Name: "color", Type: model.TypeString, Flags: "h"},
)

type vnodeOpt func(*model.Vnode)

// vnode builds a free vnode from "ncpus=4,mem=8gb"; its host is its name
// unless onHost says otherwise.
func vnode(name, avail string, opts ...vnodeOpt) *model.Vnode {
	v := &model.Vnode{Name: name, Host: name, Available: map[string]string{}, Assigned: map[string]float64{}}
	last := ""
	for _, kv := range strings.Split(avail, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			// "aoe=rhel8,sles15": a piece without "=" continues a list.
			if last != "" && kv != "" {
				v.Available[last] += "," + kv
			}
			continue
		}
		last = k
		if d, ok := testDefs[k]; ok {
			if n, err := d.Normalize(val); err == nil {
				val = n
			}
		}
		v.Available[k] = val
	}
	v.DeriveCapacity(testDefs)
	for _, o := range opts {
		o(v)
	}
	return v
}

func onHost(h string) vnodeOpt             { return func(v *model.Vnode) { v.Host = h } }
func withState(s model.NodeState) vnodeOpt { return func(v *model.Vnode) { v.State |= s } }
func prio(p int) vnodeOpt                  { return func(v *model.Vnode) { v.Priority = p } }

// running puts a job holding ncpus on the vnode.
func running(id string, ncpus float64) vnodeOpt {
	return func(v *model.Vnode) {
		if v.Jobs == nil {
			v.Jobs = map[string]int{}
		}
		v.Jobs[id] = int(ncpus)
		v.Assigned["ncpus"] += ncpus
		v.RecomputeBusy()
	}
}

func exclusiveJob(id string) vnodeOpt {
	return func(v *model.Vnode) {
		v.ExclusiveJob = id
		if v.Jobs == nil {
			v.Jobs = map[string]int{}
		}
		v.Jobs[id] = 1
		v.RecomputeBusy()
	}
}

type jobOpt func(*model.Job)

func inQueue(q string) jobOpt    { return func(j *model.Job) { j.Queue = q } }
func jobPrio(p int) jobOpt       { return func(j *model.Job) { j.Priority = p } }
func comment(c string) jobOpt    { return func(j *model.Job) { j.Comment = c } }
func neverEpoch(e uint64) jobOpt { return func(j *model.Job) { j.SetNeverRunEpoch(e) } }

// job builds a queued job; seq orders submission.
func job(t testing.TB, seq int64, sel, place string, opts ...jobOpt) *model.Job {
	t.Helper()
	s, err := model.ParseSelect(sel, testDefs)
	if err != nil {
		t.Fatalf("select %q: %v", sel, err)
	}
	j := &model.Job{ID: jobID(seq), Seq: seq, Queue: "workq", State: model.StateQueued, Select: s}
	if place != "" {
		p, err := model.ParsePlace(place)
		if err != nil {
			t.Fatalf("place %q: %v", place, err)
		}
		j.Place = p
	}
	for _, o := range opts {
		o(j)
	}
	return j
}

func jobID(seq int64) string { return model.FormatJobID(seq, "svr") }

func snapshot(vnodes []*model.Vnode, jobs ...*model.Job) *Snapshot {
	return &Snapshot{
		Epoch:  7,
		Defs:   testDefs,
		Vnodes: vnodes,
		Queued: jobs,
		Queues: map[string]Queue{"workq": {Name: "workq"}},
	}
}

func withKeys(t testing.TB, s *Snapshot, lines ...string) *Snapshot {
	t.Helper()
	keys, err := policy.ParseNodeSortKeys(lines)
	if err != nil {
		t.Fatal(err)
	}
	s.Config.NodeSortKeys = keys
	return s
}

// execOf renders a decision like exec_vnode, ncpus only and without mem:
// "(n1:ncpus=2)+(n2:ncpus=1+n3:ncpus=1)".
func execOf(d model.RunDecision) string {
	var chunks []string
	for _, ec := range d.Exec {
		var shares []string
		for _, s := range ec.Shares {
			p := s.Vnode
			if n, ok := s.Amounts["ncpus"]; ok {
				p += ":ncpus=" + model.ResourceDef{Type: model.TypeLong}.FormatAmount(n)
			}
			shares = append(shares, p)
		}
		chunks = append(chunks, "("+strings.Join(shares, "+")+")")
	}
	return strings.Join(chunks, "+")
}

// runs maps job id to exec text.
func runs(p *Plan) map[string]string {
	out := map[string]string{}
	for _, d := range p.Runs {
		out[d.JobID] = execOf(d)
	}
	return out
}

func comments(p *Plan) map[string]model.JobComment {
	out := map[string]model.JobComment{}
	for _, c := range p.Comments {
		out[c.JobID] = c
	}
	return out
}
