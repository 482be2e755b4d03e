package model

import "testing"

func TestParseStageList(t *testing.T) {
	got, err := ParseStageList("in.dat@store:/data/in.dat, cfg@store.example.org:conf/a:b")
	if err != nil {
		t.Fatal(err)
	}
	want := []StageSpec{{"in.dat", "store", "/data/in.dat"}, {"cfg", "store.example.org", "conf/a:b"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v", got)
	}
	if s := FormatStageList(got); s != "in.dat@store:/data/in.dat,cfg@store.example.org:conf/a:b" {
		t.Errorf("format %q", s)
	}
	for _, bad := range []string{"", "x", "x@h", "@h:/p", "x@:/p", "x@h:", "x@u@h:/p", "x@-oProxyCommand=y:/p", "x@h p:/p", "x@h:/p\nq"} {
		if _, err := ParseStageList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSubjobStagingIndex(t *testing.T) {
	p := &Job{ID: "5[].s", Array: &ArrayState{}, JobExt: &JobExt{Stagein: "in.^array_index^@h:/d/in.^array_index^", Stageout: "o^array_index^@h:/r/"}}
	s := p.NewSubjob(3)
	if s.Stagein() != "in.3@h:/d/in.3" || s.Stageout() != "o3@h:/r/" {
		t.Errorf("subjob staging %q %q", s.Stagein(), s.Stageout())
	}
}
