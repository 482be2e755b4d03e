package pbscmd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// refNode01Long is the pbsnodes -a example of the reference (§8).
const refNode01Long = "node01\n" +
	"     Mom = node01.example.com\n" +
	"     Port = 15002\n" +
	"     pbs_version = 23.06.06\n" +
	"     ntype = PBS\n" +
	"     state = free\n" +
	"     pcpus = 64\n" +
	"     resources_available.arch = linux\n" +
	"     resources_available.host = node01\n" +
	"     resources_available.mem = 263721296kb\n" +
	"     resources_available.ncpus = 64\n" +
	"     resources_available.vnode = node01\n" +
	"     resources_assigned.mem = 0kb\n" +
	"     resources_assigned.ncpus = 0\n" +
	"     resv_enable = True\n" +
	"     sharing = default_shared\n" +
	"     last_state_change_time = Mon Jun  2 10:00:00 2025\n" +
	"\n"

func refNode01() *model.Vnode {
	v := &model.Vnode{
		Name: "node01", Host: "node01", Mom: "node01.example.com", Port: 15002,
		Version: "23.06.06", Pcpus: 64,
		Available: map[string]string{
			"arch": "linux", "host": "node01", "mem": "263721296kb", "ncpus": "64", "vnode": "node01",
		},
		LastStateChange: time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC).Unix(),
	}
	v.DeriveCapacity(model.BuiltinResources())
	return v
}

// bigHost is one host made of two vnodes, one running job 7 on 4 cpus.
func bigHost() []*model.Vnode {
	var out []*model.Vnode
	for i, name := range []string{"big[0]", "big[1]"} {
		v := &model.Vnode{
			Name: name, Host: "big", Mom: "big.example.com",
			Available: map[string]string{"host": "big", "mem": "16gb", "ncpus": "8", "vnode": name},
		}
		v.DeriveCapacity(model.BuiltinResources())
		if i == 0 {
			v.Assigned = map[string]float64{"ncpus": 4, "mem": 1 << 30}
			v.Jobs = map[string]int{"7.pbssvr": 4}
		}
		out = append(out, v)
	}
	return out
}

func runPbsnodes(t *testing.T, srv *fakeServer, args ...string) (*testIO, int) {
	t.Helper()
	tio := newTestEnv(srv)
	return tio, Pbsnodes(context.Background(), tio.env, args)
}

func TestPbsnodesLongMatchesReference(t *testing.T) {
	srv := &fakeServer{nodes: []*model.Vnode{refNode01()}, info: apiInfo()}
	for _, args := range [][]string{{"-a"}, {"-av"}, {"node01"}, {"-v", "node01"}} {
		tio, code := runPbsnodes(t, srv, args...)
		if code != 0 || tio.stdout.String() != refNode01Long {
			t.Errorf("%q: exit %d stderr %q\n got:\n%s\nwant:\n%s", args, code, tio.stderr, tio.stdout, refNode01Long)
		}
	}
}

func TestPbsnodesHostSumsVnodes(t *testing.T) {
	srv := &fakeServer{nodes: bigHost(), info: apiInfo()}
	tio, _ := runPbsnodes(t, srv, "-a")
	want := "big\n" +
		"     Mom = big.example.com\n" +
		"     ntype = PBS\n" +
		"     state = free\n" +
		"     jobs = 7.pbssvr/0, 7.pbssvr/1, 7.pbssvr/2, 7.pbssvr/3\n" +
		"     resources_available.host = big\n" +
		"     resources_available.mem = 32gb\n" +
		"     resources_available.ncpus = 16\n" +
		"     resources_available.vnode = <various>\n" +
		"     resources_assigned.mem = 1048576kb\n" +
		"     resources_assigned.ncpus = 4\n" +
		"     resv_enable = True\n" +
		"     sharing = default_shared\n" +
		"\n"
	if tio.stdout.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", tio.stdout, want)
	}
	tio, _ = runPbsnodes(t, srv, "-av")
	if out := tio.stdout.String(); !strings.HasPrefix(out, "big[0]\n") || !strings.Contains(out, "\n\nbig[1]\n") ||
		!strings.Contains(out, "big[1]\n     Mom = big.example.com\n     ntype = PBS\n     state = free\n     resources_available.host") {
		t.Errorf("-av:\n%s", out)
	}
}

func TestPbsnodesJSON(t *testing.T) {
	srv := &fakeServer{nodes: bigHost(), info: apiInfo()}
	tio, code := runPbsnodes(t, srv, "-av", "-F", "json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	out := tio.stdout.String()
	for _, want := range []string{
		"{\n\t\"timestamp\":\t1748858401,\n\t\"pbs_version\":\t\"strata-test\",\n\t\"pbs_server\":\t\"pbssvr\",\n\t\"nodes\":\t{\n\t\t\"big[0]\":\t{\n",
		"\t\t\t\"jobs\":\t[\"7.pbssvr/0\", \"7.pbssvr/1\", \"7.pbssvr/2\", \"7.pbssvr/3\"],\n",
		"\t\t\t\"resources_available\":\t{\n\t\t\t\t\"host\":\t\"big\",\n\t\t\t\t\"mem\":\t\"16gb\",\n\t\t\t\t\"ncpus\":\t8,\n",
		"\t\t\t\"resources_assigned\":\t{\n\t\t\t\t\"mem\":\t\"1048576kb\",\n\t\t\t\t\"ncpus\":\t4\n\t\t\t},\n",
		"\t\t\"big[1]\":\t{\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON lacks %q:\n%s", want, out)
		}
	}
	// big[1] has nothing assigned: no resources_assigned object at all.
	if strings.Count(out, "resources_assigned") != 1 || !strings.HasSuffix(out, "\t\t}\n\t}\n}\n") {
		t.Errorf("JSON:\n%s", out)
	}
}

func TestPbsnodesSummaryAndList(t *testing.T) {
	n1 := refNode01()
	n1.Available["ngpus"] = "4"
	n1.Available["nmics"] = "0"
	n3 := refNode01()
	n3.Name, n3.Available["host"] = "node03", "node03"
	n3.State = model.NodeOffline
	n3.Comment = "disk replaced"
	n7 := refNode01()
	n7.Name = "node07"
	n7.State = model.NodeDown
	n7.Comment = "node down: communication closed"
	srv := &fakeServer{nodes: []*model.Vnode{n1, n3, n7}, info: apiInfo()}

	tio, _ := runPbsnodes(t, srv, "-aS")
	lines := strings.Split(tio.stdout.String(), "\n")
	if lines[0]+"\n"+lines[1]+"\n" != nodeSummaryHeader ||
		lines[2] != "node01          free            --       --       node01          --            251gb      64       0       4 --" ||
		lines[3] != "node03          offline         --       --       node03          --            251gb      64       0       0 disk replaced" {
		t.Errorf("-aS:\n%s", tio.stdout)
	}
	tio, _ = runPbsnodes(t, srv, "-l")
	want := "node03               offline disk replaced\nnode07               down node down: communication closed\n"
	if tio.stdout.String() != want {
		t.Errorf("-l:\n%q\nwant\n%q", tio.stdout, want)
	}
}

func TestPbsnodesMessages(t *testing.T) {
	tio, code := runPbsnodes(t, &fakeServer{})
	if code != 1 || tio.stderr.String() != pbsnodesUsage {
		t.Errorf("no args: exit %d stderr %q", code, tio.stderr)
	}
	tio, code = runPbsnodes(t, &fakeServer{}, "-a")
	if code != 0 || tio.stderr.String() != "pbsnodes: No nodes found\n" || tio.stdout.Len() != 0 {
		t.Errorf("no nodes: exit %d stderr %q", code, tio.stderr)
	}
	tio, code = runPbsnodes(t, &fakeServer{nodes: []*model.Vnode{refNode01()}}, "node01", "nope")
	if code != 1 || tio.stderr.String() != "pbsnodes: Unknown node  nope\n" || tio.stdout.String() != refNode01Long {
		t.Errorf("unknown: exit %d stderr %q", code, tio.stderr)
	}
	tio, code = runPbsnodes(t, &fakeServer{}, "-Q")
	if code != 1 || !strings.HasPrefix(tio.stderr.String(), "pbsnodes: invalid option -- 'Q'\nusage:") {
		t.Errorf("bad option: exit %d stderr %q", code, tio.stderr)
	}
}
