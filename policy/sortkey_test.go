package policy

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseNodeSortKey(t *testing.T) {
	cases := []struct {
		in      string
		want    NodeSortKey
		badWord string // the token the error must name
	}{
		{in: "sort_priority HIGH", want: NodeSortKey{Resource: "sort_priority", High: true, Kind: KeyTotal}},
		{in: "ncpus low", want: NodeSortKey{Resource: "ncpus", Kind: KeyTotal}},
		{in: "ncpus High unused", want: NodeSortKey{Resource: "ncpus", High: true, Kind: KeyUnused}},
		{in: "mem LOW assigned", want: NodeSortKey{Resource: "mem", Kind: KeyAssigned}},
		{in: "  ncpus   HIGH   total ", want: NodeSortKey{Resource: "ncpus", High: true, Kind: KeyTotal}},
		{in: `"ncpus HIGH unused"`, want: NodeSortKey{Resource: "ncpus", High: true, Kind: KeyUnused}},
		{in: "ncpus HIGHEST", badWord: "HIGHEST"},
		{in: "ncpus HIGH UNUSED", badWord: "UNUSED"},
		{in: "ncpus HIGH FREE", badWord: "FREE"},
		{in: "ncpus", badWord: "ncpus"},
		{in: "", badWord: "node_sort_key"},
		{in: "ncpus HIGH unused ALL", badWord: "ALL"},
	}
	for _, tc := range cases {
		got, err := ParseNodeSortKey(tc.in)
		if tc.badWord != "" {
			if err == nil {
				t.Errorf("%q: no error, got %+v", tc.in, got)
				continue
			}
			if !strings.Contains(err.Error(), "Invalid node_sort_key") || !strings.Contains(err.Error(), tc.badWord) {
				t.Errorf("%q: error %q does not name %q", tc.in, err, tc.badWord)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseNodeSortKeys(t *testing.T) {
	got, err := ParseNodeSortKeys([]string{"sort_priority HIGH", "ncpus LOW unused"})
	if err != nil {
		t.Fatal(err)
	}
	want := []NodeSortKey{{"sort_priority", true, KeyTotal}, {"ncpus", false, KeyUnused}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if !AnyDynamic(got) || AnyDynamic(got[:1]) {
		t.Fatal("AnyDynamic wrong")
	}
	if _, err := ParseNodeSortKeys([]string{"ncpus HIGH", "mem sideways"}); err == nil || !strings.Contains(err.Error(), "node_sort_key 2") {
		t.Fatalf("error %v should name line 2", err)
	}
	if d := DefaultNodeSortKeys(); len(d) != 1 || d[0].String() != "sort_priority HIGH" {
		t.Fatalf("default %+v", d)
	}
}

func TestNodeSortKeyDynamic(t *testing.T) {
	for _, tc := range []struct {
		k    NodeSortKey
		want bool
	}{
		{NodeSortKey{"ncpus", true, KeyTotal}, false},
		{NodeSortKey{"ncpus", true, KeyUnused}, true},
		{NodeSortKey{"mem", false, KeyAssigned}, true},
		{NodeSortKey{SortPriority, true, KeyUnused}, false},
	} {
		if got := tc.k.Dynamic(); got != tc.want {
			t.Errorf("%v Dynamic = %v", tc.k, got)
		}
	}
}
