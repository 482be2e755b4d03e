package server

import (
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// TestResvSubmitRefusals: the requests pbs_rsub must refuse before
// anything is stored: a start in the past, even by seconds (the bug found
// against OpenPBS: -E in 15 s with -D 20 was accepted); a maintenance
// reservation by a user who is not a manager; a delete_idle_time that
// would overflow the idle deadline.
func TestResvSubmitRefusals(t *testing.T) {
	cfg := testServerConfig()
	const now = 1_800_000_000
	cases := []struct {
		name string
		req  api.ResvSubmitRequest
		code int
	}{
		{"start 5 s ago", api.ResvSubmitRequest{End: now + 15, Duration: 20}, model.PBSEBadTimeSpec},
		{"start 1 s ago", api.ResvSubmitRequest{Start: now - 1, Duration: 20}, model.PBSEBadTimeSpec},
		{"maintenance by a user", api.ResvSubmitRequest{Start: now + 60, Duration: 60, MaintHosts: []string{"node1"}}, model.PBSEPerm},
		{"delete_idle_time overflow", api.ResvSubmitRequest{Start: now + 60, Duration: 60, DeleteIdleTime: 1 << 62}, model.PBSEBadAttrVal},
		{"negative delete_idle_time", api.ResvSubmitRequest{Start: now + 60, Duration: 60, DeleteIdleTime: -1}, model.PBSEBadAttrVal},
	}
	for _, tc := range cases {
		req := tc.req
		_, err := buildResvExtra(&req, alice, cfg, nil, now)
		pe, ok := model.AsPBSError(err)
		if !ok || pe.Code != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
	req := api.ResvSubmitRequest{Start: now, Duration: 20, DeleteIdleTime: 30}
	if r, err := buildResvExtra(&req, alice, cfg, nil, now); err != nil || r.DeleteIdleTime != 30 {
		t.Errorf("a start right now: %v %+v", err, r)
	}
}
