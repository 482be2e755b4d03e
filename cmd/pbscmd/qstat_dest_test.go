package pbscmd

import (
	"context"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/server/api"
)

// qstat accepts destinations (queue, @server, queue@server) as operands.
func TestQstatDestinations(t *testing.T) {
	info := apiInfo()
	info.Queues = []api.QueueInfo{{Name: "workq"}}
	srv := &fakeServer{jobs: refAltJobs(), info: info}
	for _, op := range []string{"workq", "@pbssvr", "workq@pbssvr"} {
		tio := newTestEnv(srv)
		if code := Qstat(context.Background(), tio.env, []string{op}); code != 0 || tio.stderr.Len() != 0 ||
			!strings.Contains(tio.stdout.String(), "101.pbssvr") {
			t.Errorf("qstat %s: exit %d stderr %q stdout %q", op, code, tio.stderr, tio.stdout)
		}
	}
	tio := newTestEnv(srv)
	if code := Qstat(context.Background(), tio.env, []string{"nosuch"}); code != 170 || tio.stderr.String() != "qstat: Unknown queue nosuch\n" {
		t.Errorf("unknown queue: exit %d stderr %q", code, tio.stderr)
	}
	tio = newTestEnv(srv)
	if code := Qstat(context.Background(), tio.env, []string{"1x"}); code != 1 || tio.stderr.String() != "qstat: illegally formed job identifier: 1x\n" {
		t.Errorf("1x: exit %d stderr %q", code, tio.stderr)
	}
}
