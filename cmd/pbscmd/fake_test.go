package pbscmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// fakeServer answers like the real server from fixed data.
type fakeServer struct {
	info       api.ServerInfo
	jobs       []*model.Job
	nodes      []*model.Vnode
	deleteErr  map[string]error
	deleted    []string
	submitted  *api.SubmitRequest
	connectErr error
	// ops records job operations as "op id detail"; opErr fails them.
	ops   []string
	opErr map[string]error
	opMu  sync.Mutex // qhold and qrls send many operations concurrently
}

func (f *fakeServer) op(name, id, detail string) error {
	f.opMu.Lock()
	defer f.opMu.Unlock()
	if f.connectErr != nil {
		return f.connectErr
	}
	if err := f.opErr[id]; err != nil {
		return err
	}
	f.ops = append(f.ops, strings.Join(strings.Fields(name+" "+id), " ")+" "+detail)
	f.ops[len(f.ops)-1] = strings.TrimSpace(f.ops[len(f.ops)-1])
	return nil
}

func (f *fakeServer) Hold(_ context.Context, id string, r api.HoldRequest) error {
	return f.op("hold", id, r.Holds)
}
func (f *fakeServer) Release(_ context.Context, id string, r api.HoldRequest) error {
	return f.op("release", id, r.Holds)
}

// HoldMany, ReleaseMany and DeleteMany answer like an old server without the batched
// routes, so these tests see the per-id requests.
func (f *fakeServer) HoldMany(context.Context, []string, string) ([]error, error) {
	return nil, api.ErrNoBatch
}
func (f *fakeServer) ReleaseMany(context.Context, []string, string) ([]error, error) {
	return nil, api.ErrNoBatch
}
func (f *fakeServer) DeleteMany(context.Context, []string, api.DeleteRequest) ([]error, error) {
	return nil, api.ErrNoBatch
}
func (f *fakeServer) Alter(_ context.Context, id string, r *api.AlterRequest) error {
	b, _ := json.Marshal(r)
	return f.op("alter", id, string(b))
}
func (f *fakeServer) Signal(_ context.Context, id string, r api.SignalRequest) error {
	return f.op("signal", id, r.Signal)
}
func (f *fakeServer) Move(_ context.Context, id string, r api.MoveRequest) error {
	return f.op("move", id, r.Queue)
}
func (f *fakeServer) Rerun(_ context.Context, id string, r api.RerunRequest) error {
	return f.op("rerun", id, fmt.Sprint(r.Force))
}
func (f *fakeServer) Run(_ context.Context, id string, r api.RunRequest) error {
	return f.op("run", id, strings.Join(r.Vnodes, "+"))
}
func (f *fakeServer) MarkNodes(_ context.Context, r *api.MarkNodesRequest) error {
	b, _ := json.Marshal(r)
	return f.op("mark", "", string(b))
}

func (f *fakeServer) Submit(_ context.Context, req *api.SubmitRequest, _ time.Duration) (string, error) {
	if f.connectErr != nil {
		return "", f.connectErr
	}
	f.submitted = req
	return "102.pbssvr", nil
}

func (f *fakeServer) Jobs(_ context.Context, ids []string, history bool) (*api.JobsResponse, error) {
	if f.connectErr != nil {
		return nil, f.connectErr
	}
	resp := &api.JobsResponse{Server: f.info}
	if len(ids) == 0 {
		for _, j := range f.jobs {
			if history || !j.IsFinished() {
				resp.Jobs = append(resp.Jobs, api.NewJobStatus(j))
			}
		}
		return resp, nil
	}
	for _, id := range ids {
		found := false
		for _, j := range f.jobs {
			if j.ID == id {
				if j.IsFinished() && !history {
					return nil, model.Err(model.PBSEHistJobID)
				}
				resp.Jobs = append(resp.Jobs, api.NewJobStatus(j))
				found = true
			}
		}
		if !found {
			return nil, model.Err(model.PBSEUnknownJobID)
		}
	}
	return resp, nil
}

func (f *fakeServer) Delete(_ context.Context, id string, _ api.DeleteRequest) error {
	if f.connectErr != nil {
		return f.connectErr
	}
	if err := f.deleteErr[id]; err != nil {
		return err
	}
	f.deleted = append(f.deleted, id)
	return nil
}

func (f *fakeServer) Nodes(context.Context) (*api.NodesResponse, error) {
	if f.connectErr != nil {
		return nil, f.connectErr
	}
	return &api.NodesResponse{Server: f.info, Vnodes: f.nodes}, nil
}

func (f *fakeServer) Server(context.Context) (*api.ServerInfo, error) {
	if f.connectErr != nil {
		return nil, f.connectErr
	}
	info := f.info
	return &info, nil
}

// testIO is a command's captured output.
type testIO struct {
	env            *Env
	stdout, stderr *bytes.Buffer
	stdin          *strings.Reader
	vars           map[string]string
	unwritable     map[string]bool
}

// newTestEnv returns an Env talking to srv, on host login1.example.com in
// /home/alice/proj, with UTC times and PBS_SERVER=pbssvr.
func newTestEnv(srv Server) *testIO {
	t := &testIO{
		stdout:     &bytes.Buffer{},
		stderr:     &bytes.Buffer{},
		stdin:      strings.NewReader(""),
		unwritable: map[string]bool{},
		vars: map[string]string{
			"PBS_SERVER": "pbssvr",
			"HOME":       "/home/alice",
			"LANG":       "en_US.UTF-8",
			"LOGNAME":    "alice",
			"PATH":       "/usr/bin:/bin",
			"MAIL":       "/var/spool/mail/alice",
			"SHELL":      "/bin/bash",
		},
	}
	t.env = &Env{
		Stdin:  t.stdin,
		Stdout: t.stdout,
		Stderr: t.stderr,
		LookupEnv: func(n string) (string, bool) {
			v, ok := t.vars[n]
			return v, ok
		},
		Environ: func() []string {
			var out []string
			for _, k := range model.SortedKeys(t.vars) {
				out = append(out, k+"="+t.vars[k])
			}
			return out
		},
		Connect:         func(string) Server { return srv },
		Now:             func() time.Time { return time.Unix(1748858401, 0) },
		Loc:             time.UTC,
		Hostname:        func() (string, error) { return "login1.example.com", nil },
		Getwd:           func() (string, error) { return "/home/alice/proj", nil },
		System:          func() string { return "Linux" },
		StdinIsTerminal: func() bool { return false },
		Writable: func(dir string) error {
			if t.unwritable[dir] {
				return errPermission
			}
			return nil
		},
	}
	return t
}

// errPermission is what access(2) gives for a directory the user cannot write.
var errPermission = syscall.EACCES

// apiInfo is the fake server's description.
func apiInfo() api.ServerInfo {
	return api.ServerInfo{Name: "pbssvr", Version: "strata-test", History: true, Defs: model.BuiltinResources()}
}
