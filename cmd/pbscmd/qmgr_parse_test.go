package pbscmd

import (
	"reflect"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestQmgrParse(t *testing.T) {
	for _, tc := range []struct {
		in    string
		verb  string
		obj   string
		names []string
		attrs []model.ManagerAttr
	}{
		{"s s scheduling=true", "set", "server", nil, []model.ManagerAttr{{Name: "scheduling", Op: "=", Value: "true"}}},
		{"p q workq", "print", "queue", []string{"workq"}, nil},
		{"l n", "list", "node", nil, nil},
		{`set queue a,b@default resources_max.ncpus += 4, comment = "x, y"`, "set", "queue", []string{"a", "b"},
			[]model.ManagerAttr{{Name: "resources_max", Resource: "ncpus", Op: "+=", Value: "4"}, {Name: "comment", Op: "=", Value: "x, y"}}},
		{"set node n1 resources_available.aoe = rhel,sles, comment=hi", "set", "node", []string{"n1"},
			[]model.ManagerAttr{{Name: "resources_available", Resource: "aoe", Op: "=", Value: "rhel,sles"}, {Name: "comment", Op: "=", Value: "hi"}}},
		{"s q q max_run = [u:PBS_GENERIC = 4]", "set", "queue", []string{"q"}, []model.ManagerAttr{{Name: "max_run", Op: "=", Value: "[u:PBS_GENERIC=4]"}}},
		{"unset server comment", "unset", "server", nil, []model.ManagerAttr{{Name: "comment"}}},
		// An attribute this qmgr does not know is still an attribute when an
		// operator follows it (the server then says whether it exists).
		{"set server some_future_attr = 3", "set", "server", nil, []model.ManagerAttr{{Name: "some_future_attr", Op: "=", Value: "3"}}},
	} {
		d, perr := parseQmgrDirective(tc.in)
		if perr != nil {
			t.Errorf("%q: %+v", tc.in, perr)
			continue
		}
		if d.verb != tc.verb || d.object != tc.obj || !reflect.DeepEqual(d.names, tc.names) && len(d.names)+len(tc.names) > 0 || !reflect.DeepEqual(d.attrs, tc.attrs) {
			t.Errorf("%q: got %s %s %v %+v", tc.in, d.verb, d.object, d.names, d.attrs)
		}
	}
}

func TestQmgrParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in    string
		class int
		pos   int
	}{
		{"frob server", 1, 0},
		{"set", 2, 3},
		{"set bogus", 2, 4},
		{"set queue q enabled true", 4, 20},
		{"set queue q enabled = 'x", 4, 22},
	} {
		_, perr := parseQmgrDirective(tc.in)
		if perr == nil || perr.class != tc.class {
			t.Errorf("%q: %+v, want class %d", tc.in, perr, tc.class)
			continue
		}
		if tc.class == 4 && perr.pos != tc.pos {
			t.Errorf("%q: caret at %d, want %d", tc.in, perr.pos, tc.pos)
		}
	}
}

func TestSplitQmgrDirectives(t *testing.T) {
	got := splitQmgrDirectives("s s a=1; s s b='x;y' # comment\nl q \\\nworkq\n")
	want := []string{"s s a=1", "s s b='x;y'", "l q  workq"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}
