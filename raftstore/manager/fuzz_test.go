package manager

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
)

var (
	fuzzVerbs   = []string{Set, Unset, Create, Delete, Import}
	fuzzObjects = []string{Server, Queue, Sched, Resource, Node, Hook}
	fuzzOps     = []string{"=", "+=", "-=", ""}
)

// describe returns what print shows of the object a request named.
func describe(c *model.ServerConfig, object, name string) (Object, bool) {
	switch object {
	case Server:
		return DescribeServer(c), true
	case Sched:
		return DescribeSched(c), true
	case Queue:
		if q, ok := c.Queues[name]; ok {
			return DescribeQueue(&q), true
		}
	}
	return Object{}, false
}

// replay applies what print writes for o ("set <object> <name> item = v",
// then "+= v" for further values) to cfg, as `qmgr < printed` does.
func replay(t *testing.T, cfg model.ServerConfig, st VnodeSource, object, name string, o Object) model.ServerConfig {
	t.Helper()
	for _, it := range o.Items {
		vals := it.Replayed()
		if vals == nil {
			continue
		}
		for i, v := range vals {
			op := "="
			if i > 0 {
				op = "+="
			}
			req := &Request{Verb: Set, Object: object, Name: name, Attrs: []Attr{a(it.Name, op, v)}}
			res, err := Apply(cfg, st, req)
			if err != nil {
				t.Fatalf("replaying print: set %s %s %s %s %q: %v", object, name, it.Name, op, v, err)
			}
			cfg = res.Config
		}
	}
	return cfg
}

// FuzzManagerApply checks qmgr requests as the FSM applies them: errors are
// PBS errors, Apply neither changes its input nor depends on anything but
// it, and what print then shows of the object replays to the same object.
func FuzzManagerApply(f *testing.F) {
	for _, s := range []struct {
		verb, obj       byte
		name, attr, res string
		op              byte
		value           string
	}{
		{0, 0, "", "managers", "", 1, "alice@*"}, {0, 0, "", "max_run", "", 0, "[u:PBS_GENERIC=4],[o:PBS_ALL=10]"},
		{0, 0, "", "resources_default", "walltime", 0, "1:00"}, {0, 0, "", "default_chunk", "mem", 0, "1GB"}, {0, 0, "", "comment", "", 0, "x, y"},
		{0, 1, "workq", "resources_max", "ncpus", 0, "16"}, {2, 1, "q2", "queue_type", "", 0, "e"}, {0, 1, "workq", "acl_users", "", 2, "bob"},
		{0, 2, "", "job_sort_formula", "", 0, "2*ncpus + walltime/60"}, {0, 2, "", "node_sort_key", "", 1, "ncpus HIGH unused"},
		{0, 2, "", "sched_min_interval", "", 0, "250ms"}, {2, 3, "scratch", "type", "", 0, "size"}, {0, 4, "n1", "state", "", 0, "offline"},
		{0, 4, "n1", "resources_available", "ncpus", 0, "8"}, {2, 5, "h1", "event", "", 0, "queuejob"}, {0, 0, "", "max_job_sequence_id", "", 0, "99999999999999999999"},
		{0, 0, "", "job_history_duration", "", 0, "99999999999999999999"}, {0, 2, "", "job_sort_formula_threshold", "", 0, "NaN"},
		{0, 2, "", "sched_min_interval", "", 0, "9e15"}, {0, 2, "", "sched_min_interval", "", 0, "NaN"},
		{0, 2, "", "resource_group", "", 0, "grpA 1 root 50, alice 2 grpA 1"}, {0, 2, "", "resource_group", "", 2, "alice 2 grpA 1"},
		{0, 2, "", "fairshare_decay_factor", "", 0, "0.5"}, {0, 2, "", "fairshare_usage_res", "", 0, "ncpus*walltime"},
		{0, 2, "", "preempt_order", "", 0, "SCR 80 SC 50 S"}, {0, 2, "", "preempt_queue_prio", "", 0, "120"},
		{0, 2, "", "preemptive_sched", "", 0, "false"}, {0, 2, "", "preempt_prio", "", 0, "express_queue, normal_jobs, fairshare"},
		{0, 2, "", "max_starve", "", 0, "12:00:00"}, {0, 0, "", "max_run_soft", "", 0, "[u:PBS_GENERIC=2]"},
		{0, 1, "workq", "max_run_soft", "", 0, "[g:PBS_GENERIC=3]"}, {0, 2, "", "preempt_queue_prio", "", 1, "99999999999999999999"},
	} {
		f.Add(s.verb, s.obj, s.name, s.attr, s.res, s.op, s.value)
	}
	f.Fuzz(func(t *testing.T, verb, obj byte, name, attr, resource string, op byte, value string) {
		cfg := baseConfig()
		st := testVnodes()
		req := &Request{
			Verb: fuzzVerbs[int(verb)%len(fuzzVerbs)], Object: fuzzObjects[int(obj)%len(fuzzObjects)], Name: name,
			Attrs: []Attr{{Name: attr, Resource: resource, Op: fuzzOps[int(op)%len(fuzzOps)], Value: value}},
		}
		if req.Verb == Import {
			req.Attrs, req.ContentType, req.Content = nil, attr, value
		}
		before, _ := json.Marshal(cfg)
		vnBefore, _ := json.Marshal(st.Vnodes())
		var res *Result
		var err error
		fuzzcheck.Bounded(t, len(name)+len(attr)+len(resource)+len(value), func() { res, err = Apply(cfg, st, req) })
		if after, _ := json.Marshal(cfg); string(after) != string(before) {
			t.Fatalf("%+v changed Apply's input configuration", req)
		}
		if vnAfter, _ := json.Marshal(st.Vnodes()); string(vnAfter) != string(vnBefore) {
			t.Fatalf("%+v changed the stored vnodes", req)
		}
		if err != nil {
			fuzzcheck.PBSError(t, err)
			return
		}
		if res.Config.Sched.MinIntervalMs < 0 {
			t.Fatalf("%+v: sched_min_interval of %d ms", req, res.Config.Sched.MinIntervalMs)
		}
		// The result is replicated and snapshotted as JSON.
		enc, err := json.Marshal(res)
		if err != nil {
			t.Fatalf("%+v: the result cannot be encoded: %v", req, err)
		}
		res2, err := Apply(cfg, st, req)
		if enc2, _ := json.Marshal(res2); err != nil || string(enc2) != string(enc) {
			t.Fatalf("%+v: Apply is not deterministic: %s, then %s, %v", req, enc, enc2, err)
		}
		if req.Verb != Set && req.Verb != Create || strings.ContainsAny(name, ",@") {
			return
		}
		o, ok := describe(&res.Config, req.Object, name)
		if !ok {
			return
		}
		fresh := baseConfig()
		if req.Object == Queue && req.Verb == Create {
			r, err := Apply(fresh, st, &Request{Verb: Create, Object: Queue, Name: name})
			if err != nil {
				t.Fatalf("create queue %q: %v", name, err)
			}
			fresh = r.Config
		}
		replayed := replay(t, fresh, st, req.Object, name, o)
		o2, _ := describe(&replayed, req.Object, name)
		if !reflect.DeepEqual(o2, o) {
			t.Fatalf("%+v: print shows %+v; replayed, it shows %+v", req, o, o2)
		}
	})
}
