package pbscmd

import (
	"context"
	"testing"
)

// qalter -W with an attribute PBS does not know is "Undefined attribute"
// (154), with a read-only one "Cannot set attribute ..." (155), each per
// job after the job itself was found; nothing is altered.
func TestQalterUndefinedAndReadOnlyAttributes(t *testing.T) {
	srv := &fakeServer{jobs: refAltJobs(), info: apiInfo()}
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-W", "bogus=1", "101"}, 154, "qalter: Undefined attribute  bogus 101.pbssvr\n"},
		{[]string{"-W", "job_state=R", "101", "102"}, 155,
			"qalter: Cannot set attribute, read only or insufficient permission  job_state 101.pbssvr\n" +
				"qalter: Cannot set attribute, read only or insufficient permission  job_state 102.pbssvr\n"},
		{[]string{"-W", "bogus=1", "999"}, 153, "qalter: Unknown Job Id 999.pbssvr\n"},
	} {
		tio := newTestEnv(srv)
		if code := Qalter(context.Background(), tio.env, c.args); code != c.code || tio.stderr.String() != c.stderr {
			t.Errorf("qalter %v: exit %d stderr %q, want %d %q", c.args, code, tio.stderr, c.code, c.stderr)
		}
	}
	if len(srv.ops) != 0 {
		t.Errorf("jobs were altered: %q", srv.ops)
	}
}

// qalter -W stagein/stageout take the same lists as qsub; a malformed one
// is an illegal -W value before anything is sent.
func TestQalterStaging(t *testing.T) {
	req, ops, err := parseQalter(newTestEnv(&fakeServer{}).env, []string{"-W", "stagein=a@h:/b,c@h:/d", "-W", "stageout=*.o@h:/r", "101"})
	if err != nil || len(ops) != 1 || req.Stagein == nil || *req.Stagein != "a@h:/b,c@h:/d" || req.Stageout == nil || *req.Stageout != "*.o@h:/r" {
		t.Fatalf("parse: %v %v %+v", err, ops, req)
	}
	srv := &fakeServer{jobs: refAltJobs(), info: apiInfo()}
	tio := newTestEnv(srv)
	if code := Qalter(context.Background(), tio.env, []string{"-W", "stagein=a@u@h:/b", "101"}); code != 2 || len(srv.ops) != 0 {
		t.Errorf("bad stagein: exit %d stderr %q ops %q", code, tio.stderr, srv.ops)
	}
}
