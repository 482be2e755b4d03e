package policy

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func vn(name string, prio int, ncpus, assigned float64) *model.Vnode {
	return &model.Vnode{
		Name: name, Priority: prio,
		Capacity:  map[string]float64{"ncpus": ncpus},
		Assigned:  map[string]float64{"ncpus": assigned},
		Available: map[string]string{"speed": "3"},
	}
}

func names(vs []*model.Vnode) string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return strings.Join(out, ",")
}

func TestSortVnodes(t *testing.T) {
	mk := func() []*model.Vnode {
		return []*model.Vnode{vn("a", 0, 8, 0), vn("b", 5, 4, 3), vn("c", 5, 8, 2), vn("d", 0, 4, 0)}
	}
	cases := []struct {
		keys []string
		want string
	}{
		{[]string{"sort_priority HIGH"}, "b,c,a,d"},
		{[]string{"sort_priority LOW"}, "a,d,b,c"},
		{[]string{"ncpus HIGH"}, "a,c,b,d"},
		{[]string{"ncpus LOW total"}, "b,d,a,c"},
		{[]string{"ncpus HIGH unused"}, "a,c,d,b"},
		{[]string{"ncpus LOW unused"}, "b,d,c,a"},
		{[]string{"ncpus HIGH assigned"}, "b,c,a,d"},
		{[]string{"sort_priority HIGH", "ncpus LOW"}, "b,c,d,a"},
		{[]string{"ngpus HIGH"}, "a,b,c,d"}, // missing everywhere: server order
		{[]string{"speed HIGH"}, "a,b,c,d"}, // non-consumable numeric from Available
	}
	for _, tc := range cases {
		keys, err := ParseNodeSortKeys(tc.keys)
		if err != nil {
			t.Fatal(err)
		}
		vs := mk()
		SortVnodes(vs, keys, nil)
		if got := names(vs); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.keys, got, tc.want)
		}
	}
}

func TestSortVnodesOverlay(t *testing.T) {
	vs := []*model.Vnode{vn("a", 0, 8, 0), vn("b", 0, 8, 0)}
	keys, _ := ParseNodeSortKeys([]string{"ncpus HIGH unused"})
	// The overlay says 6 cpus were placed on a this cycle.
	SortVnodes(vs, keys, func(v *model.Vnode, res string) float64 {
		if v.Name == "a" {
			return v.Assigned[res] + 6
		}
		return v.Assigned[res]
	})
	if got := names(vs); got != "b,a" {
		t.Fatalf("got %s, want b,a", got)
	}
}
