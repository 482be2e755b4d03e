package pbscmd

import (
	"context"
	"reflect"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestQdel(t *testing.T) {
	srv := &fakeServer{deleteErr: map[string]error{
		"999.pbssvr": model.Err(model.PBSEUnknownJobID),
		"102.pbssvr": model.Err(model.PBSEPerm),
	}}
	tio := newTestEnv(srv)
	code := Qdel(context.Background(), tio.env, []string{"101", "999", "x.", "102", "103.other"})
	wantErr := "qdel: Unknown Job Id 999.pbssvr\n" +
		"qdel: illegally formed job identifier: x.\n" +
		"qdel: Unauthorized Request  102.pbssvr\n"
	if code != 159 || tio.stderr.String() != wantErr || tio.stdout.Len() != 0 {
		t.Errorf("exit %d stderr %q", code, tio.stderr)
	}
	if !reflect.DeepEqual(srv.deleted, []string{"101.pbssvr", "103.other"}) {
		t.Errorf("deleted %q", srv.deleted)
	}
}

func TestQdelAsksServerName(t *testing.T) {
	srv := &fakeServer{info: apiInfo()}
	srv.info.Name = "svr"
	tio := newTestEnv(srv)
	delete(tio.vars, "PBS_SERVER")
	if code := Qdel(context.Background(), tio.env, []string{"-Wforce", "5"}); code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	if !reflect.DeepEqual(srv.deleted, []string{"5.svr"}) {
		t.Errorf("deleted %q", srv.deleted)
	}
}

func TestQdelUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"-W", "bogus", "1"}, {"-q", "1"}} {
		tio := newTestEnv(&fakeServer{})
		code := Qdel(context.Background(), tio.env, args)
		if code != 2 || len(tio.stderr.String()) < len(qdelUsage) {
			t.Errorf("%q: exit %d stderr %q", args, code, tio.stderr)
		}
	}
	tio := newTestEnv(&fakeServer{})
	Qdel(context.Background(), tio.env, []string{"-W", "bogus", "1"})
	if tio.stderr.String() != "qdel: illegal -W value\n"+qdelUsage {
		t.Errorf("stderr %q", tio.stderr)
	}
}
