package model

import "testing"

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4gb", 4 << 30, true}, {"4GB", 4 << 30, true}, {"4g", 4 << 30, true}, {"512mb", 512 << 20, true},
		{"1024", 1024, true}, {"1234B", 1234, true}, {"2tb", 2 << 40, true}, {"1kw", 8 << 10, true},
		{"1.5gb", 0, false}, {"gb", 0, false}, {"", 0, false}, {"12parsecs", 0, false}, {"-1gb", 0, false},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	for b, want := range map[int64]string{16 << 30: "16gb", 512 << 20: "512mb", 1234: "1234b", 1536: "1536b", 3 << 10: "3kb"} {
		if got := FormatSize(b); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"3600", 3600, true}, {"60:00", 3600, true}, {"1:00:00", 3600, true}, {"100:00:00", 360000, true},
		{"10.5", 11, true}, {"10.4", 10, true}, {"1:2:3:4", 0, false}, {"1:xx", 0, false}, {"", 0, false}, {"-5", 0, false}, {"1e3", 0, false},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	if got := FormatDuration(360061); got != "100:01:01" {
		t.Errorf("FormatDuration = %q", got)
	}
}

func TestParseJobID(t *testing.T) {
	cases := []struct {
		in, full string
		ok       bool
	}{
		{"123", "123.svr", true}, {"123.other", "123.other", true}, {"123.svr@svr", "123.svr", true},
		{"103[]", "103[].svr", true}, {"103[7].svr", "103[7].svr", true}, {"R105", "R105.svr", true},
		{"abc", "", false}, {"1x", "", false}, {"R1[2]", "", false}, {"1234567890123", "", false}, {"12.", "", false},
	}
	for _, c := range cases {
		id, err := ParseJobID(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParseJobID(%q) err = %v, want ok=%v", c.in, err, c.ok)
			continue
		}
		if c.ok && id.Full("svr") != c.full {
			t.Errorf("ParseJobID(%q).Full = %q, want %q", c.in, id.Full("svr"), c.full)
		}
	}
	if got := ShortJobID("102.pbssvr.example.com"); got != "102.pbssvr" {
		t.Errorf("ShortJobID = %q", got)
	}
}

func TestSelectAndPlace(t *testing.T) {
	defs := BuiltinResources()
	sel, err := ParseSelect("2:ncpus=8:mem=16GB+arch=linux", defs)
	if err != nil {
		t.Fatal(err)
	}
	if sel.String() != "2:ncpus=8:mem=16gb+1:arch=linux" || sel.NodeCount() != 3 || sel.Total("ncpus") != 16 {
		t.Errorf("select = %q nodect %d ncpus %v", sel.String(), sel.NodeCount(), sel.Total("ncpus"))
	}
	if sel[0].Consume["mem"] != 16<<30 || sel[1].Match["arch"] != "linux" {
		t.Errorf("chunk digest: %+v", sel)
	}
	for _, bad := range []string{"", "2:ncpus", "0:ncpus=1", "1:ncpus=1:ncpus=2", "1:ncpus=x", "1:walltime=10"} {
		if _, err := ParseSelect(bad, defs); err == nil {
			t.Errorf("ParseSelect(%q) accepted", bad)
		}
	}
	if _, err := ParseSelect("1:foo=1", defs); err == nil || err.Error() != "Unknown resource: foo" {
		t.Errorf("unknown resource: %v", err)
	}
	p, err := ParsePlace("scatter:excl:group=switch")
	if err != nil || p.String() != "scatter:excl:group=switch" {
		t.Errorf("place = %q %v", p.String(), err)
	}
	for _, bad := range []string{":excl", "free:pack", "sideways", "group="} {
		if _, err := ParsePlace(bad); err == nil {
			t.Errorf("ParsePlace(%q) accepted", bad)
		}
	}
}

func TestExecFormats(t *testing.T) {
	j := &Job{Exec: []ExecChunk{
		{Shares: []VnodeShare{{Vnode: "node01", Host: "node01", Amounts: map[string]float64{"ncpus": 8, "mem": 16 << 30}}}, MPIProcs: 2},
		{Shares: []VnodeShare{{Vnode: "node02", Host: "node02", Amounts: map[string]float64{"ncpus": 1}}}},
	}}
	if got := j.ExecVnode(BuiltinResources()); got != "(node01:ncpus=8:mem=16777216kb)+(node02:ncpus=1)" {
		t.Errorf("exec_vnode = %q", got)
	}
	if got := j.ExecHost(); got != "node01/0*8+node02/0" {
		t.Errorf("exec_host = %q", got)
	}
	if got := j.NodeFile(); len(got) != 3 || got[0] != "node01" || got[2] != "node02" {
		t.Errorf("nodefile = %v", got)
	}
}

func TestWithBuiltins(t *testing.T) {
	old := BuiltinResources()
	delete(old, "soft_walltime")
	old["switch"] = ResourceDef{Name: "switch", Type: TypeString, Flags: "h"}
	got := old.WithBuiltins()
	if got["soft_walltime"].Type != TypeDuration || got["switch"].Type != TypeString {
		t.Errorf("WithBuiltins: %v", got)
	}
	if _, ok := old["soft_walltime"]; ok {
		t.Error("WithBuiltins changed its receiver")
	}
	full := BuiltinResources()
	full["marker"] = ResourceDef{Name: "marker"}
	if _, ok := full.WithBuiltins()["marker"]; !ok || len(full.WithBuiltins()) != len(full) {
		t.Error("WithBuiltins lost or added definitions of a complete set")
	}
}
