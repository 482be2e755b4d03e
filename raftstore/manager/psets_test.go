package manager

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestPsetAttributes: the placement-set attributes of the server, queues
// and the sched object, what they store and what refuses them.
func TestPsetAttributes(t *testing.T) {
	sw := create(Resource, "switch", a("type", "=", "string"), a("flag", "=", "h"))
	rk := create(Resource, "rack", a("type", "=", "string_array"), a("flag", "=", "h"))
	cnt := create(Resource, "count", a("type", "=", "long"))
	for _, tc := range []struct {
		name       string
		reqs       []Request
		item, want string
		code       int
	}{
		{"node_group_enable", []Request{set(Server, "", a("node_group_enable", "=", "true"))}, "node_group_enable", "True", 0},
		{"node_group_key", []Request{sw, rk, set(Server, "", a("node_group_key", "=", "switch,rack"))}, "node_group_key", "switch,rack", 0},
		{"node_group_key unknown resource", []Request{set(Server, "", a("node_group_key", "=", "nosuch"))}, "", "", model.PBSEUnknownResource},
		{"node_group_key not a string", []Request{cnt, set(Server, "", a("node_group_key", "=", "count"))}, "", "", model.PBSEBadAttrVal},
		{"node_group_key unset", []Request{sw, set(Server, "", a("node_group_key", "=", "switch")), unset(Server, "", "node_group_key")}, "node_group_key", "", 0},
		{"queue node_group_key", []Request{sw, set(Queue, "workq", a("node_group_key", "=", "switch"))}, "node_group_key", "switch", 0},
		{"queue node_group_key unknown", []Request{set(Queue, "workq", a("node_group_key", "=", "nosuch"))}, "", "", model.PBSEUnknownResource},
		{"do_not_span_psets", []Request{set(Sched, "", a("do_not_span_psets", "=", "True"))}, "do_not_span_psets", "True", 0},
		{"only_explicit_psets", []Request{set(Sched, "", a("only_explicit_psets", "=", "1"))}, "only_explicit_psets", "True", 0},
		{"do_not_span_psets not a boolean", []Request{set(Sched, "", a("do_not_span_psets", "=", "x"))}, "", "", model.PBSEBadAttrVal},
		{"a key resource may not be deleted", []Request{sw, set(Queue, "workq", a("node_group_key", "=", "switch")), {Verb: Delete, Object: Resource, Name: "switch"}}, "", "", PBSEResourceBusyUse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := describeItem(t, tc.reqs, tc.item)
			if tc.code != 0 {
				pe, ok := err.(*model.PBSError)
				if !ok || pe.Code != tc.code {
					t.Fatalf("error %v, want code %d", err, tc.code)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("%s = %q (%v), want %q", tc.item, got, err, tc.want)
			}
		})
	}
}

// TestPsetChangesMoveEpoch: a change of the placement sets makes jobs
// judged "Can Never Run" against the old sets be looked at again.
func TestPsetChangesMoveEpoch(t *testing.T) {
	cfg := baseConfig()
	for _, req := range []Request{
		set(Sched, "", a("do_not_span_psets", "=", "true")),
		set(Server, "", a("node_group_enable", "=", "true")),
	} {
		res, err := Apply(cfg, testVnodes(), &req)
		if err != nil {
			t.Fatal(err)
		}
		if !res.ResourcesChanged {
			t.Errorf("%v: epoch does not move", req.Attrs)
		}
		cfg = res.Config
	}
	req := set(Server, "", a("comment", "=", "x"))
	if res, _ := Apply(cfg, testVnodes(), &req); res.ResourcesChanged {
		t.Error("an unrelated change moved the epoch")
	}
}
