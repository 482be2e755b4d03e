package pbscmd

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// fsFake is the fake server with the fairshare routes.
type fsFake struct {
	*fakeServer
	resp api.FairshareResponse
	reqs []api.FairshareRequest
	err  error
}

func (f *fsFake) Fairshare(context.Context) (*api.FairshareResponse, error) { return &f.resp, f.err }
func (f *fsFake) ChangeFairshare(_ context.Context, r api.FairshareRequest) error {
	f.reqs = append(f.reqs, r)
	return f.err
}

func newFSFake() *fsFake {
	return &fsFake{fakeServer: &fakeServer{}, resp: api.FairshareResponse{Enabled: true, Entity: "euser", UsageRes: "cput",
		DecayTime: 86400, DecayFactor: 0.5, Entries: []api.FairshareEntry{
			{Name: "TREEROOT", Depth: 0, Shares: 1, Perc: 1, Usage: 301, Factor: 0.5},
			{Name: "grpA", Parent: "TREEROOT", Depth: 1, Shares: 60, Perc: 0.6, Usage: 201},
			{Name: "alice", Parent: "grpA", Depth: 2, Shares: 1, Perc: 0.6, Usage: 200.4, Factor: 0.68, Rank: 2},
			{Name: "bob", Parent: "TREEROOT", Depth: 1, Shares: 40, Perc: 0.4, Usage: 100, Factor: 0.59, Rank: 1},
		}}}
}

// TestPbsfs: what each option prints or asks the server, and the PBS error
// of a refused change.
func TestPbsfs(t *testing.T) {
	cases := []struct {
		args []string
		out  []string // substrings of stdout
		req  string   // the change asked for, "op entity usage"
		code int
	}{
		{nil, []string{"Fairshare usage units are in: cput", "fair_share: on  entity: euser  decay: x0.5 every 24:00:00",
			"alice       : Grp: grpA     Shares: 1     Usage: 200", "Rank: 2"}, "", 0},
		{[]string{"-t"}, []string{"TREEROOT(-1 301)\n    grpA(60 201)\n        alice(1 200)\n    bob(40 100)\n"}, "", 0},
		{[]string{"-p"}, []string{"alice|grpA|1|200|60.000000|0.680000|2\n"}, "", 0},
		{[]string{"-g", "alice"}, []string{"fairshare entity: alice\nResgroup: grpA\n", "usage: 200 (cput)",
			"Path from root: TREEROOT(301) -> grpA(201) -> alice(200)"}, "", 0},
		{[]string{"-c", "alice", "bob"}, []string{"bob\n"}, "", 0},
		{[]string{"-g", "nobody"}, nil, "", 1},
		{[]string{"-s", "alice", "42.5"}, nil, "set alice 42.5", 0},
		{[]string{"-d"}, nil, "decay  0", 0},
		{[]string{"-e"}, nil, "trim  0", 0},
		{[]string{"--reset"}, nil, "reset  0", 0},
		{[]string{"-s", "alice", "lots"}, nil, "", 1},
		{[]string{"-s", "alice"}, nil, "", 1},
		{[]string{"-d", "-e"}, nil, "", 1},
		{[]string{"-I", "other"}, nil, "", 1},
	}
	for _, tc := range cases {
		srv := newFSFake()
		tio := newTestEnv(srv)
		code := Pbsfs(t.Context(), tio.env, tc.args)
		if code != tc.code {
			t.Errorf("pbsfs %v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, tio.stderr.String())
			continue
		}
		for _, want := range tc.out {
			if !strings.Contains(tio.stdout.String(), want) {
				t.Errorf("pbsfs %v: stdout lacks %q:\n%s", tc.args, want, tio.stdout.String())
			}
		}
		var got string
		for _, r := range srv.reqs {
			got = fmt.Sprintf("%s %s %g", r.Op, r.Entity, r.Usage)
		}
		if got != tc.req {
			t.Errorf("pbsfs %v: asked %q, want %q", tc.args, got, tc.req)
		}
	}
	// A refused change: the PBS message and exit status.
	srv := newFSFake()
	srv.err = model.Err(model.PBSEPerm)
	tio := newTestEnv(srv)
	if code := Pbsfs(t.Context(), tio.env, []string{"-d"}); code != 159 || tio.stderr.String() != "pbsfs: Unauthorized Request \n" {
		t.Errorf("refused: exit %d stderr %q", code, tio.stderr.String())
	}
}
