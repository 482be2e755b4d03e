package server

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestShrinkRunningKeepsTheJobsChunks(t *testing.T) {
	defs := model.BuiltinResources()
	sel := func(s string) model.Select {
		v, err := model.ParseSelect(s, defs)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	chunk := func(v string, n float64) model.ExecChunk {
		return model.ExecChunk{Shares: []model.VnodeShare{{Vnode: v, Host: v, Amounts: map[string]float64{"ncpus": n}}}}
	}
	rv := &model.Reservation{Select: sel("3:ncpus=2"), Nodes: []model.ExecChunk{chunk("a", 2), chunk("b", 2), chunk("c", 2)}}
	job := &model.Job{Exec: []model.ExecChunk{chunk("c", 2)}}
	kept, err := shrinkRunning(rv, sel("1:ncpus=2"), []*model.Job{job})
	if err != nil || len(kept) != 1 || kept[0].Shares[0].Vnode != "c" {
		t.Errorf("kept %+v, %v; want the job's vnode c", kept, err)
	}
	if _, err := shrinkRunning(rv, sel("1:ncpus=1"), nil); err == nil || err.(*model.PBSError).Code != model.PBSESelectNotSubset {
		t.Errorf("another chunk: %v", err)
	}
	if _, err := shrinkRunning(rv, sel("4:ncpus=2"), nil); err == nil || err.(*model.PBSError).Code != model.PBSESelectNotSubset {
		t.Errorf("more chunks: %v", err)
	}
	two := &model.Job{Exec: []model.ExecChunk{chunk("a", 2), chunk("b", 2)}}
	if _, err := shrinkRunning(rv, sel("1:ncpus=2"), []*model.Job{two}); err == nil || err.(*model.PBSError).Code != model.PBSEResvNotEmpty {
		t.Errorf("a job on two chunks kept in one: %v", err)
	}
}
