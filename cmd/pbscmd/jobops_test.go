package pbscmd

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

func TestHoldReleaseSignalAndFriends(t *testing.T) {
	cases := []struct {
		run  func(context.Context, *Env, []string) int
		args []string
		ops  []string
	}{
		{Qhold, []string{"101", "102.other"}, []string{"hold 101.pbssvr u", "hold 102.other u"}},
		{Qhold, []string{"-h", "os", "101"}, []string{"hold 101.pbssvr os"}},
		{Qrls, []string{"-hu", "101"}, []string{"release 101.pbssvr u"}},
		{Qsig, []string{"-s", "suspend", "101"}, []string{"signal 101.pbssvr suspend"}},
		{Qsig, []string{"101"}, []string{"signal 101.pbssvr SIGTERM"}},
		{Qmove, []string{"batch", "101", "102"}, []string{"move 101.pbssvr batch", "move 102.pbssvr batch"}},
		{Qrerun, []string{"-W", "force", "101"}, []string{"rerun 101.pbssvr true"}},
		{Qrun, []string{"-H", "(node01:ncpus=2)+node02", "101"}, []string{"run 101.pbssvr node01+node02"}},
		{Qalter, []string{"-N", "new", "-l", "walltime=1:00", "101"}, []string{`alter 101.pbssvr {"name":"new","resources":{"walltime":"1:00"}}`}},
		{Qalter, []string{"-W", "depend=afterok:5:6,afterany:7", "101"}, []string{`alter 101.pbssvr {"depend":"afterok:5:6,afterany:7"}`}},
	}
	for _, c := range cases {
		srv := &fakeServer{info: apiInfo()}
		tio := newTestEnv(srv)
		if code := c.run(context.Background(), tio.env, c.args); code != 0 || tio.stderr.Len() != 0 || tio.stdout.Len() != 0 {
			t.Errorf("%v: exit %d stdout %q stderr %q", c.args, code, tio.stdout, tio.stderr)
		}
		if !reflect.DeepEqual(srv.ops, c.ops) {
			t.Errorf("%v: ops %q, want %q", c.args, srv.ops, c.ops)
		}
	}
}

func TestJobOpErrorsAndExitCodes(t *testing.T) {
	srv := &fakeServer{info: apiInfo(), opErr: map[string]error{
		"999.pbssvr": model.Err(model.PBSEUnknownJobID),
		"102.pbssvr": model.Err(model.PBSEBadState),
	}}
	tio := newTestEnv(srv)
	code := Qsig(context.Background(), tio.env, []string{"999", "x.", "101", "102"})
	want := "qsig: Unknown Job Id 999.pbssvr\n" +
		"qsig: illegally formed job identifier: x.\n" +
		"qsig: Request invalid for state of job 102.pbssvr\n"
	if code != 168 || tio.stderr.String() != want {
		t.Errorf("exit %d stderr %q", code, tio.stderr)
	}
	srv.opErr["101.pbssvr"] = model.Errorf(model.PBSEModAtrRun, " Resource_List.ncpus")
	tio = newTestEnv(srv)
	code = Qalter(context.Background(), tio.env, []string{"-l", "ncpus=4", "101"})
	if code != 167 || tio.stderr.String() != "qalter: Cannot modify attribute while job running  Resource_List.ncpus 101.pbssvr\n" {
		t.Errorf("qalter: exit %d stderr %q", code, tio.stderr)
	}
}

func TestJobOpUsage(t *testing.T) {
	for _, c := range []struct {
		run  func(context.Context, *Env, []string) int
		name string
		args []string
		msg  string
	}{
		{Qhold, "qhold", []string{"-h", "x", "1"}, "qhold: illegal -h value\n"},
		{Qrls, "qrls", nil, ""},
		{Qsig, "qsig", nil, ""},
		{Qmove, "qmove", []string{"workq"}, ""},
		{Qalter, "qalter", []string{"-r", "maybe", "1"}, "qalter: illegal -r value\n"},
		{Qrerun, "qrerun", []string{"-W", "x", "1"}, "qrerun: illegal -W value\n"},
	} {
		tio := newTestEnv(&fakeServer{})
		code := c.run(context.Background(), tio.env, c.args)
		if code != 2 || !strings.HasPrefix(tio.stderr.String(), c.msg+"usage: "+c.name) {
			t.Errorf("%s %v: exit %d stderr %q", c.name, c.args, code, tio.stderr)
		}
	}
	tio := newTestEnv(&fakeServer{})
	if code := Qhold(context.Background(), tio.env, []string{"--version"}); code != 0 || !strings.HasPrefix(tio.stdout.String(), "pbs_version = ") {
		t.Errorf("--version: %d %q", code, tio.stdout)
	}
}

func TestQselectAndTracejob(t *testing.T) {
	jobs := refAltJobs()
	jobs[0].History = []model.Event{{Time: 1748858291, Text: "Job Queued at request of alice@login1"}}
	srv := &fakeServer{jobs: jobs, info: apiInfo()}
	for args, want := range map[string]string{
		"":                  "101.pbssvr\n102.pbssvr\n",
		"-s R":              "102.pbssvr\n",
		"-u alice":          "101.pbssvr\n",
		"-l ncpus.gt.4":     "102.pbssvr\n",
		"-l mem.le.2gb":     "101.pbssvr\n",
		"-q workq -N STDIN": "101.pbssvr\n",
	} {
		tio := newTestEnv(srv)
		var argv []string
		if args != "" {
			argv = strings.Fields(args)
		}
		if code := Qselect(context.Background(), tio.env, argv); code != 0 || tio.stdout.String() != want {
			t.Errorf("qselect %s: exit %d got %q want %q", args, code, tio.stdout, want)
		}
	}
	tio := newTestEnv(srv)
	if code := Tracejob(context.Background(), tio.env, []string{"101"}); code != 0 ||
		tio.stdout.String() != "\nJob: 101.pbssvr\n\n06/02/2025 09:58:11  S    Job Queued at request of alice@login1\n" {
		t.Errorf("tracejob: exit %d %q", code, tio.stdout)
	}
}

func TestPbsnodesMark(t *testing.T) {
	srv := &fakeServer{info: apiInfo(), nodes: []*model.Vnode{{Name: "node01", Host: "node01"}, {Name: "node01[1]", Host: "node01"}}}
	tio := newTestEnv(srv)
	code := Pbsnodes(context.Background(), tio.env, []string{"-o", "-C", "disk replaced", "node01", "nosuch"})
	if code != 1 || tio.stderr.String() != "Error marking node nosuch - Unknown node \n" {
		t.Errorf("exit %d stderr %q", code, tio.stderr)
	}
	want := []string{`mark {"nodes":["node01","node01[1]"],"offline":true,"comment":"disk replaced"}`}
	if !reflect.DeepEqual(srv.ops, want) {
		t.Errorf("ops %q", srv.ops)
	}
}

// TestQrlsManyJobsInParallel: qrls with many operands overlaps its
// requests, yet releases every job and reports failures in operand order
// with the last failure's exit status, as one at a time.
func TestQrlsManyJobsInParallel(t *testing.T) {
	srv := &fakeServer{info: apiInfo(), opErr: map[string]error{
		"105.pbssvr": model.Err(model.PBSEUnknownJobID),
		"130.pbssvr": model.Err(model.PBSEBadState),
	}}
	var args, want []string
	for i := 100; i < 140; i++ {
		args = append(args, fmt.Sprint(i))
		if i != 105 && i != 130 {
			want = append(want, fmt.Sprintf("release %d.pbssvr u", i))
		}
	}
	args = append(args, "x.")
	tio := newTestEnv(srv)
	code := Qrls(context.Background(), tio.env, args)
	wantErr := "qrls: Unknown Job Id 105.pbssvr\n" +
		"qrls: Request invalid for state of job 130.pbssvr\n" +
		"qrls: illegally formed job identifier: x.\n"
	if code != 1 || tio.stderr.String() != wantErr {
		t.Errorf("exit %d stderr %q", code, tio.stderr)
	}
	got := append([]string(nil), srv.ops...)
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("released %q, want %q", got, want)
	}
}
