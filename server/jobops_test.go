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

func TestClampRangeID(t *testing.T) {
	p := &model.Job{ID: "5[].svr", Array: &model.ArrayState{Start: 0, End: 9, Step: 1}}
	for in, want := range map[string]string{
		"5[3-9223372036854775807:2].svr": "5[3-9:2].svr",
		"5[0-9223372036854775806].svr":   "5[0-9].svr",
		"5[4].svr":                       "5[4].svr",
		"5[].svr":                        "5[].svr",
	} {
		if got, err := clampRangeID(p, in); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"5[10-20].svr", "5[a-b].svr", "5[3-1].svr", "5[1-3:0].svr"} {
		if _, err := clampRangeID(p, bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
