package pbscmd

import (
	"reflect"
	"testing"
)

func TestNormalizeGetopt(t *testing.T) {
	cases := []struct {
		spec     optSpec
		args     []string
		flags    []string
		operands []string
		dd       int
	}{
		{qsubSpec, []string{"-lselect=2:ncpus=1", "job.sh"}, []string{"-l", "select=2:ncpus=1"}, []string{"job.sh"}, -1},
		{qsubSpec, []string{"-joe", "-N", "x"}, []string{"-j", "oe", "-N", "x"}, nil, -1},
		{qsubSpec, []string{"-hz", "-p-5"}, []string{"-h", "-z", "-p", "-5"}, nil, -1},
		{qsubSpec, []string{"-hNname"}, []string{"-h", "-N", "name"}, nil, -1},
		{qsubSpec, []string{"-C", "", "-"}, []string{"-C", ""}, []string{"-"}, -1},
		{qsubSpec, []string{"-l", "walltime=1:00", "--", "/bin/sleep", "-l", "10"}, []string{"-l", "walltime=1:00"}, []string{"/bin/sleep", "-l", "10"}, 0},
		// Options after operands are still options (glibc permutes).
		{qsubSpec, []string{"job.sh", "-N", "late"}, []string{"-N", "late"}, []string{"job.sh"}, -1},
		{qstatSpec, []string{"-fx", "102"}, []string{"-f", "-x"}, []string{"102"}, -1},
		{qstatSpec, []string{"-fFjson"}, []string{"-f", "-F", "json"}, nil, -1},
		{pbsnodesSpec, []string{"-aS"}, []string{"-a", "-S"}, nil, -1},
		{pbsnodesSpec, []string{"-av", "-F", "json"}, []string{"-a", "-v", "-F", "json"}, nil, -1},
	}
	for _, c := range cases {
		g, err := normalizeGetopt(c.spec, c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(g.Flags, c.flags) || !reflect.DeepEqual(g.Operands, c.operands) || g.AfterDashDash != c.dd {
			t.Errorf("%q: got flags %q operands %q dd %d, want %q %q %d", c.args, g.Flags, g.Operands, g.AfterDashDash, c.flags, c.operands, c.dd)
		}
	}
}

func TestNormalizeGetoptErrors(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"-y"}, "invalid option -- 'y'"},
		{[]string{"-hy"}, "invalid option -- 'y'"},
		{[]string{"-l"}, "option requires an argument -- 'l'"},
		{[]string{"--bogus"}, "unrecognized option '--bogus'"},
	}
	for _, c := range cases {
		_, err := normalizeGetopt(qsubSpec, c.args)
		if err == nil || err.Error() != c.msg {
			t.Errorf("%q: got %v, want %q", c.args, err, c.msg)
		}
	}
}

// The urfave flag set built from a spec must accept exactly what the
// normalizer produces, including digit options and repeated values.
func TestParseOptionsThroughUrfave(t *testing.T) {
	o, split, err := parseQsubWords([]string{"-lselect=1:ncpus=2", "-l", "walltime=10:00,mem=1gb", "-lwalltime=20:00", "-Nfirst", "-N", "second", "-hV", "-v", "a='x,y',b", "job.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if got := o.res.names; !reflect.DeepEqual(got, []string{"select", "walltime", "mem"}) {
		t.Errorf("resource order %q", got)
	}
	if v, _ := o.res.get("walltime"); v != "20:00" {
		t.Errorf("last -l walltime should win, got %q", v)
	}
	if o.vals['N'] != "second" || !o.bools['h'] || !o.bools['V'] || o.vals['v'] != "a='x,y',b" {
		t.Errorf("parsed %+v", o)
	}
	if !reflect.DeepEqual(split.Operands, []string{"job.sh"}) {
		t.Errorf("operands %q", split.Operands)
	}
}
