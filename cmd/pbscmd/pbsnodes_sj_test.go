package pbscmd

import (
	"context"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// pbsnodes -aSj: OpenPBS's job summary, with free/total columns and the
// job ids shortened for the local server.
func TestPbsnodesJobSummary(t *testing.T) {
	srv := &fakeServer{info: apiInfo(), nodes: append([]*model.Vnode{refNode01()}, bigHost()...),
		jobs: []*model.Job{{ID: "7.pbssvr", State: model.StateRunning}}}
	tio := newTestEnv(srv)
	want := "                                                        mem       ncpus   nmics   ngpus\n" +
		"vnode           state           njobs   run   susp      f/t        f/t     f/t     f/t   jobs\n" +
		"--------------- --------------- ------ ----- ------ ------------ ------- ------- ------- -------\n" +
		"node01          free                 0     0      0  251gb/251gb   64/64     0/0     0/0 --\n" +
		"big[0]          free                 1     1      0    15gb/16gb     4/8     0/0     0/0 7\n" +
		"big[1]          free                 0     0      0    16gb/16gb     8/8     0/0     0/0 --\n"
	if code := Pbsnodes(context.Background(), tio.env, []string{"-aSj"}); code != 0 || tio.stdout.String() != want || tio.stderr.Len() != 0 {
		t.Errorf("exit %d stderr %q\n got:\n%s\nwant:\n%s", code, tio.stderr, tio.stdout, want)
	}
	tio = newTestEnv(srv)
	if code := Pbsnodes(context.Background(), tio.env, []string{"-aj"}); code != 1 {
		t.Errorf("-j without -S: exit %d", code)
	}
}
