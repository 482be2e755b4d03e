package server

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestConvertNodes(t *testing.T) {
	for in, want := range map[string][2]string{
		"2:ppn=4":            {"2:ncpus=4:mpiprocs=4", "scatter"},
		"1:ppn=2:big+3#excl": {"1:ncpus=2:mpiprocs=2:big=True+3:ncpus=1:mpiprocs=1", "scatter:excl"},
		"node01:ppn=8":       {"1:ncpus=8:mpiprocs=8:host=node01", "scatter"},
	} {
		sel, place, err := convertNodes(in)
		if err != nil || sel != want[0] || place != want[1] {
			t.Errorf("%s: %q %q %v, want %q %q", in, sel, place, err, want[0], want[1])
		}
	}
	if _, _, err := convertNodes("2:ppn=x"); err == nil {
		t.Errorf("bad ppn accepted")
	}
}

func TestParseDependExpandsIDs(t *testing.T) {
	text, deps, err := parseDepend("afterok:12:13.other,beforeany:14", "svr")
	if err != nil || text != "afterok:12.svr:13.other,beforeany:14.svr" || len(deps) != 3 || deps[2].Type != "beforeany" {
		t.Fatalf("%q %v %v", text, deps, err)
	}
	for _, bad := range []string{"afterok", "sometime:1", "afterok:x"} {
		if _, _, err := parseDepend(bad, "svr"); err == nil || err.(*model.PBSError).Code != model.PBSEBadDepend {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestOnlyLowered(t *testing.T) {
	defs := model.BuiltinResources()
	old := map[string]string{"walltime": "01:00:00", "ncpus": "2"}
	if err := onlyLowered(old, map[string]string{"walltime": "00:30:00", "ncpus": "2"}, defs); err != nil {
		t.Errorf("lowering refused: %v", err)
	}
	err := onlyLowered(old, map[string]string{"walltime": "02:00:00", "ncpus": "2"}, defs)
	if pe, ok := model.AsPBSError(err); !ok || pe.Msg != "Unauthorized Request  Resource_List.walltime" {
		t.Errorf("raising walltime: %v", err)
	}
}
