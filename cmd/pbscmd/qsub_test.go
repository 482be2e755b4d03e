package pbscmd

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
)

// writeScript writes a job script in a temporary directory.
func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "job.sh")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runQsub runs qsub against a fake server.
func runQsub(t *testing.T, tio *testIO, args ...string) int {
	t.Helper()
	return Qsub(context.Background(), tio.env, args)
}

func TestQsubSubmitsScriptWithDirectives(t *testing.T) {
	script := "#!/bin/sh\n" +
		"# a comment\n" +
		"#PBS -N from_script\n" +
		"#PBS -l select=2:ncpus=8:mem=16gb \\\n" +
		"  -l walltime=01:00:00\n" +
		"  #PBS -q long -j oe\n" +
		": a colon line is not executable\n" +
		"\n" +
		"#PBS -l walltime=02:00:00,place=scatter\n" +
		"cd $PBS_O_WORKDIR\n" +
		"#PBS -N ignored_after_executable_line\n"
	path := writeScript(t, script)
	srv := &fakeServer{}
	tio := newTestEnv(srv)
	code := runQsub(t, tio, "-l", "walltime=00:30:00", "-q", "short", path)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, tio.stderr)
	}
	if got := tio.stdout.String(); got != "102.pbssvr\n" {
		t.Errorf("stdout %q", got)
	}
	req := srv.submitted
	if req.Name != "from_script" || req.Queue != "short" || req.Join != "oe" {
		t.Errorf("name %q queue %q join %q", req.Name, req.Queue, req.Join)
	}
	want := map[string]string{"select": "2:ncpus=8:mem=16gb", "walltime": "00:30:00", "place": "scatter"}
	if !reflect.DeepEqual(req.Resources, want) {
		t.Errorf("resources %v, want %v", req.Resources, want)
	}
	if req.Script != script || req.SubmitArgs != "-l walltime=00:30:00 -q short "+path {
		t.Errorf("script or submit args wrong: %q", req.SubmitArgs)
	}
	if len(req.Token) != 32 || req.Workdir != "/home/alice/proj" || req.SubmitHost != "login1.example.com" {
		t.Errorf("token %q workdir %q host %q", req.Token, req.Workdir, req.SubmitHost)
	}
	if req.Output != "" || req.Error != "" {
		t.Errorf("default paths must be left to the server: %q %q", req.Output, req.Error)
	}
}

func TestQsubDirectivePrefix(t *testing.T) {
	script := "#PBS -N pbsname\n#XX -N xxname\necho\n"
	cases := []struct {
		args []string
		env  string
		want string
	}{
		{nil, "", "pbsname"},
		{[]string{"-C", "#XX"}, "", "xxname"},
		{nil, "#XX", "xxname"},
		{[]string{"-C", ""}, "", "job.sh"}, // directives disabled
	}
	for _, c := range cases {
		srv := &fakeServer{}
		tio := newTestEnv(srv)
		if c.env != "" {
			tio.vars["PBS_DPREFIX"] = c.env
		}
		args := append(append([]string{}, c.args...), writeScript(t, script))
		if code := runQsub(t, tio, args...); code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, tio.stderr)
		}
		if srv.submitted.Name != c.want {
			t.Errorf("%v/%q: name %q, want %q", c.args, c.env, srv.submitted.Name, c.want)
		}
	}
}

func TestScanDirectives(t *testing.T) {
	ds, err := scanDirectives("#!/bin/bash\n#PBS -N 'a b' -v \"X=1,Y=two words\"\n#PBSX not one\n#PBS -l a=1\\\n,b=2\nrun\n#PBS -N late\n", "#PBS")
	if err != nil {
		t.Fatal(err)
	}
	want := []directive{
		{Text: `-N 'a b' -v "X=1,Y=two words"`, Words: []string{"-N", "a b", "-v", "X=1,Y=two words"}},
		{Text: "-l a=1,b=2", Words: []string{"-l", "a=1,b=2"}},
	}
	if !reflect.DeepEqual(ds, want) {
		t.Errorf("got %#v", ds)
	}
}

func TestQsubEnvironment(t *testing.T) {
	srv := &fakeServer{}
	tio := newTestEnv(srv)
	tio.vars["TZ"] = "UTC"
	tio.vars["FOO"] = "bar"
	code := runQsub(t, tio, "-v", "A=1,FOO,B='x,y',UNSET", "--", "/bin/sleep", "10")
	if code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	var names []string
	for _, e := range srv.submitted.Env {
		names = append(names, e.Name+"="+e.Value)
	}
	want := []string{
		"PBS_O_HOME=/home/alice", "PBS_O_LANG=en_US.UTF-8", "PBS_O_LOGNAME=alice",
		"PBS_O_PATH=/usr/bin:/bin", "PBS_O_MAIL=/var/spool/mail/alice", "PBS_O_SHELL=/bin/bash",
		"PBS_O_TZ=UTC", "PBS_O_WORKDIR=/home/alice/proj", "PBS_O_SYSTEM=Linux",
		"PBS_O_HOST=login1.example.com", "A=1", "FOO=bar", "B=x,y",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("env\n got %q\nwant %q", names, want)
	}
	if srv.submitted.Name != "STDIN" || !reflect.DeepEqual(srv.submitted.Argv, []string{"/bin/sleep", "10"}) || srv.submitted.Script != "" {
		t.Errorf("argv job: %+v", srv.submitted)
	}
}

func TestQsubStdinAndQuiet(t *testing.T) {
	srv := &fakeServer{}
	tio := newTestEnv(srv)
	tio.env.Stdin = strings.NewReader("#PBS -N fromstdin\necho hi\n")
	tio.env.StdinIsTerminal = func() bool { return true }
	if code := runQsub(t, tio, "-z", "-"); code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	if got := tio.stdout.String(); got != stdinBanner {
		t.Errorf("stdout %q: -z prints no id, a terminal gets the banner", got)
	}
	if srv.submitted.Name != "fromstdin" {
		t.Errorf("name %q", srv.submitted.Name)
	}
}

func TestQsubOutputPaths(t *testing.T) {
	srv := &fakeServer{}
	tio := newTestEnv(srv)
	tio.env.Stdin = strings.NewReader("echo\n")
	if code := runQsub(t, tio, "-o", "out/run.log", "-e", "other:/scratch/e.log"); code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	if srv.submitted.Output != "login1.example.com:/home/alice/proj/out/run.log" || srv.submitted.Error != "other:/scratch/e.log" {
		t.Errorf("paths %q %q", srv.submitted.Output, srv.submitted.Error)
	}

	tio = newTestEnv(srv)
	tio.unwritable["/home/alice/proj"] = true
	code := runQsub(t, tio, "--", "/bin/true")
	if code != 1 || tio.stderr.String() != "qsub: cannot write output files to /home/alice/proj: permission denied\n" {
		t.Errorf("exit %d stderr %q", code, tio.stderr)
	}
}

// Every client-side error: message, usage or not, exit status.
func TestQsubErrors(t *testing.T) {
	crlf := writeScript(t, "#!/bin/sh\r\necho\r\n")
	badDirective := writeScript(t, "#PBS -j xx\necho\n")
	unknownDirective := writeScript(t, "#PBS -Y\necho\n")
	dir := t.TempDir()
	cases := []struct {
		args  []string
		msg   string
		usage bool
		code  int
	}{
		{[]string{"-N", "bad name", "--", "x"}, "qsub: illegal -N value\n", true, 2},
		{[]string{"-N", strings.Repeat("a", 231), "--", "x"}, "qsub: illegal -N value\n", true, 2},
		{[]string{"-j", "x", "--", "x"}, "qsub: illegal -j value\n", true, 2},
		{[]string{"-p", "1024", "--", "x"}, "qsub: illegal -p value\n", true, 2},
		{[]string{"-r", "maybe", "--", "x"}, "qsub: illegal -r value\n", true, 2},
		{[]string{"-lwalltime=1:xx", "--", "x"}, "qsub: Illegal attribute or resource value Resource_List.walltime\n", false, 166},
		{[]string{"-lcput=-1", "--", "x"}, "qsub: Illegal attribute or resource value Resource_List.cput\n", false, 166},
		{[]string{"-lmem=1.5gb", "--", "x"}, "qsub: Illegal attribute or resource value Resource_List.mem\n", false, 166},
		{[]string{"-lselect=2:ncpus", "--", "x"}, "qsub: illegal -l value\n", true, 2},
		{[]string{"-l", "novalue", "--", "x"}, "qsub: illegal -l value\n", true, 2},
		{[]string{"-lplace=scatter", "--", "x"}, "qsub: Cannot have \"place\" without \"select\"\n", false, 7},
		{[]string{"-lselect=1:ncpus=1", "-lncpus=4", "--", "x"}, "qsub: \"-lresource=\" cannot be used with \"select\" or \"place\", resource is: ncpus\n", false, 6},
		{[]string{"-y"}, "qsub: invalid option -- 'y'\n", true, 2},
		{[]string{"-W", "sandbox=PRIVATE", "--", "x"}, "qsub: -W sandbox is not supported by this Strata release yet\n", false, 1},
		{[]string{filepath.Join(dir, "missing.sh")}, "qsub: script file:: No such file or directory\n", false, 1},
		{[]string{dir}, "qsub: script not a file\n", false, 1},
		{[]string{crlf}, "qsub: script contains cr, lf\n", false, 1},
		{[]string{badDirective}, "qsub: directive error: -j xx\n", false, 1},
		{[]string{unknownDirective}, "qsub: directive error: -Y\n", false, 1},
		{[]string{"a.sh", "b.sh"}, "qsub: only one script may be given\n", true, 2},
	}
	for _, c := range cases {
		srv := &fakeServer{}
		tio := newTestEnv(srv)
		code := runQsub(t, tio, c.args...)
		want := c.msg
		if c.usage {
			want += qsubUsage
		}
		if code != c.code || tio.stderr.String() != want || tio.stdout.Len() != 0 {
			t.Errorf("%q: exit %d stderr %q stdout %q; want %d %q", c.args, code, tio.stderr, tio.stdout, c.code, c.msg)
		}
		if srv.submitted != nil {
			t.Errorf("%q: must not submit", c.args)
		}
	}
}

func TestQsubServerErrors(t *testing.T) {
	srv := &fakeServer{connectErr: model.Errorf(model.PBSEUnknownQueue, "")}
	tio := newTestEnv(srv)
	if code := runQsub(t, tio, "-q", "nope", "--", "x"); code != 170 || tio.stderr.String() != "qsub: Unknown queue\n" {
		t.Errorf("exit %d stderr %q", code, tio.stderr)
	}
}

func TestMergeQsubResourcesByName(t *testing.T) {
	dir, _, err := parseQsubWords([]string{"-l", "select=1:ncpus=4,walltime=1:00:00", "-N", "d", "-h"})
	if err != nil {
		t.Fatal(err)
	}
	cmd, _, err := parseQsubWords([]string{"-l", "walltime=2:00:00", "-l", "software=x"})
	if err != nil {
		t.Fatal(err)
	}
	m := mergeQsub(dir, cmd)
	want := map[string]string{"select": "1:ncpus=4", "walltime": "2:00:00", "software": "x"}
	if !reflect.DeepEqual(m.res.asMap(), want) || m.vals['N'] != "d" || !m.bools['h'] {
		t.Errorf("merged %v %v %v", m.res.asMap(), m.vals, m.bools)
	}
}

// TestQsubStaging: -W stagein/stageout take PBS's comma-separated lists
// (one -W, several entries) and a malformed entry or a host that is not a
// plain name (user@host, an ssh option) is refused before submission.
func TestQsubStaging(t *testing.T) {
	srv := &fakeServer{}
	tio := newTestEnv(srv)
	tio.env.Stdin = strings.NewReader("echo\n")
	code := runQsub(t, tio, "-W", "stagein=in.dat@store:/data/in.dat,cfg@store:conf/run.cfg",
		"-W", "stageout=*.out@store:/results/", "-o", "login2:/home/alice/o.log")
	if code != 0 {
		t.Fatalf("exit %d %s", code, tio.stderr)
	}
	req := srv.submitted
	if req.Stagein != "in.dat@store:/data/in.dat,cfg@store:conf/run.cfg" || req.Stageout != "*.out@store:/results/" {
		t.Errorf("stagein %q stageout %q", req.Stagein, req.Stageout)
	}
	for _, bad := range [][]string{
		{"-W", "stagein=in.dat"},
		{"-W", "stagein=in.dat@store"},
		{"-W", "stagein=@store:/x"},
		{"-W", "stagein=x@victim@store:/x"},
		{"-W", "stageout=x@-oProxyCommand=sh:/x"},
		{"-o", "-oProxyCommand=sh:/x"},
		{"-e", "bob@login2:/tmp/e"},
	} {
		srv := &fakeServer{}
		tio := newTestEnv(srv)
		args := append(bad, "--", "/bin/true")
		if code := runQsub(t, tio, args...); code != 2 || !strings.Contains(tio.stderr.String(), "illegal -") {
			t.Errorf("%q: exit %d stderr %q, want illegal value", bad, code, tio.stderr)
		}
		if srv.submitted != nil {
			t.Errorf("%q: must not submit", bad)
		}
	}
}
