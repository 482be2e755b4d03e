package manager

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestSoftWalltimeDefault: resources_default.soft_walltime takes only a
// positive duration (OpenPBS test_soft_values_default).
func TestSoftWalltimeDefault(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  string // "" when refused
	}{
		{"0", ""}, {"00:00:00", ""}, {"abc", ""}, {"01:20:aa", ""}, {"-1", ""}, {"00:01:00", "00:01:00"}, {"90", "00:01:30"},
	} {
		for _, req := range []Request{
			set(Server, "", a("resources_default.soft_walltime", "=", tc.value)),
			set(Queue, "workq", a("resources_default.soft_walltime", "=", tc.value)),
		} {
			got, err := describeItem(t, []Request{req}, "resources_default.soft_walltime")
			if tc.want == "" {
				if pe, ok := err.(*model.PBSError); !ok || pe.Code != model.PBSEBadAttrVal {
					t.Errorf("%s %q: %q, %v; want Illegal attribute or resource value", req.Object, tc.value, got, err)
				}
				continue
			}
			if err != nil || got != tc.want {
				t.Errorf("%s %q: %q, %v; want %q", req.Object, tc.value, got, err, tc.want)
			}
		}
	}
}
