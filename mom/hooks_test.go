package mom

import (
	"context"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// hookFake is the fake server plus the agent hook routes: it announces
// version in register and work replies, serves set, and records fail
// action requests.
type hookFake struct {
	*fakeServer

	hmu       sync.Mutex
	version   uint64
	set       []model.Hook
	failFetch bool
	fetches   int
	actions   []api.HookActionRequest
}

func newHookFake(t *testing.T, version uint64, set ...model.Hook) (*hookFake, *httptest.Server) {
	f := &fakeServer{index: 1, changed: make(chan struct{}), jobs: map[string]*model.Job{}}
	h := &hookFake{fakeServer: f, version: version, set: set}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/agent/register", h.withVersion(f.register))
	mux.HandleFunc("POST /v1/agent/heartbeat", f.heartbeat)
	mux.HandleFunc("GET /v1/agent/work", h.withVersion(f.work))
	mux.HandleFunc("POST /v1/agent/events", f.eventsHandler)
	mux.HandleFunc("GET /v1/agent/hooks", h.hooks)
	mux.HandleFunc("POST /v1/agent/hookaction", h.action)
	return h, startTLSServer(t, mux)
}

// withVersion adds hook_version to a JSON reply of the plain fake.
func (h *hookFake) withVersion(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next(rec, r)
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || rec.Code != 200 {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		h.hmu.Lock()
		m["hook_version"] = h.version
		h.hmu.Unlock()
		reply(w, 200, m)
	}
}

func (h *hookFake) hooks(w http.ResponseWriter, r *http.Request) {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	h.fetches++
	if h.failFetch {
		reply(w, 500, model.Errorf(model.PBSESystem, "fetch refused by the test"))
		return
	}
	reply(w, 200, api.HooksResponse{Version: h.version, Hooks: h.set})
}

func (h *hookFake) action(w http.ResponseWriter, r *http.Request) {
	var req api.HookActionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		reply(w, 400, model.Err(model.PBSEInvalidRequest))
		return
	}
	h.hmu.Lock()
	h.actions = append(h.actions, req)
	h.hmu.Unlock()
	reply(w, 200, struct{}{})
}

func (h *hookFake) fetchCount() int {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	return h.fetches
}

func (h *hookFake) actionsSeen() []api.HookActionRequest {
	h.hmu.Lock()
	defer h.hmu.Unlock()
	return append([]api.HookActionRequest(nil), h.actions...)
}

func (h *hookFake) setFailFetch(v bool) {
	h.hmu.Lock()
	h.failFetch = v
	h.hmu.Unlock()
}

// shellHook is an enabled executable hook for events.
func shellHook(name, events, script string) model.Hook {
	h := model.DefaultHook(name)
	h.Events = strings.Split(events, ",")
	h.ContentType = model.HookContentExecutable
	h.Script = "#!/bin/sh\n" + script
	return h
}

func TestHookStoreSpoolAndVersions(t *testing.T) {
	dir := t.TempDir()
	logger := log.New(os.Stderr, "hooks-test: ", 0)
	s := newHookStore(dir, logger)
	if err := s.load(); err != nil || !s.current() {
		t.Fatalf("empty store: err %v current %v", err, s.current())
	}
	calls := 0
	fetch := func(context.Context) (*api.HooksResponse, error) {
		calls++
		return &api.HooksResponse{Version: 4, Hooks: []model.Hook{shellHook("a", "execjob_begin", "exit 0\n")}}, nil
	}
	fail := func(context.Context) (*api.HooksResponse, error) { calls++; return nil, errors.New("down") }

	if err := s.sync(context.Background(), fail, 3); err == nil || s.current() {
		t.Fatalf("failed fetch: err %v current %v", err, s.current())
	}
	// The fetch may bring a newer version than announced: it is current.
	if err := s.sync(context.Background(), fetch, 3); err != nil || !s.current() || s.snapshot().Version != 4 {
		t.Fatalf("fetch: err %v current %v set %+v", err, s.current(), s.snapshot())
	}
	if err := s.sync(context.Background(), fetch, 4); err != nil || calls != 2 {
		t.Fatalf("same version fetched again: calls %d err %v", calls, err)
	}

	// A restarted agent reads its copy and does not fetch the same version.
	s2 := newHookStore(dir, logger)
	if err := s2.load(); err != nil {
		t.Fatal(err)
	}
	if err := s2.sync(context.Background(), fail, 4); err != nil || len(s2.snapshot().Hooks) != 1 {
		t.Fatalf("restarted store: err %v set %+v", err, s2.snapshot())
	}
	// A newer announcement makes it stale until fetched.
	s2.announce(5)
	if s2.current() {
		t.Fatal("store current after a newer announcement")
	}
}

// TestAgentJobWaitsForHooks: while the hooks cannot be fetched the job is
// neither started nor failed; once they arrive it runs with them.
func TestAgentJobWaitsForHooks(t *testing.T) {
	out := t.TempDir()
	marker := filepath.Join(out, "begin")
	hf, srv := newHookFake(t, 7, shellHook("b", "execjob_begin", "echo \"$STRATA_HOOK_EVENT $STRATA_HOOK_JOBID\" > "+marker+"\n"))
	hf.setFailFetch(true)
	spoolDir := t.TempDir()
	startAgent(t, srv, spoolDir)
	hf.addJob(testJob("31.srv", "exit 0\n", out))
	waitFor(t, agentTimeout, "repeated fetch attempts", func() bool { return hf.fetchCount() >= 3 })
	if ev := hf.eventsFor("31.srv", ""); len(ev) != 0 || !spoolEmpty(spoolDir) {
		t.Fatalf("job acted on before the hooks arrived: events %+v", ev)
	}
	hf.setFailFetch(false)
	waitFor(t, agentTimeout, "ended event", func() bool { return len(hf.eventsFor("31.srv", api.EventEnded)) > 0 })
	if got := readFile(t, marker); got != "execjob_begin 31.srv\n" {
		t.Errorf("begin hook marker %q", got)
	}
	var set hookSet
	if err := readJSON(filepath.Join(spoolDir, fileHooks), &set); err != nil || set.Version != 7 {
		t.Errorf("spooled hooks: %v %+v", err, set)
	}
}

// TestAgentBeginRejectAndFailure: a rejecting execjob_begin hook fails the
// start with -16 and its message, without running the script; a hook past
// its alarm fails it with -22 and offline_vnodes asks the server to
// offline the host.
func TestAgentBeginRejectAndFailure(t *testing.T) {
	out := t.TempDir()
	ran := filepath.Join(out, "ran")
	reject := shellHook("rej", "execjob_begin", "[ \"$STRATA_HOOK_JOBID\" = 41.srv ] || exit 0\necho '{\"reject_message\": \"not here\"}'\nexit 1\n")
	slow := shellHook("slow", "execjob_begin", "[ \"$STRATA_HOOK_JOBID\" = 42.srv ] || exit 0\nsleep 30\n")
	slow.Alarm, slow.FailAction = 1, model.HookFailOfflineVnodes
	hf, srv := newHookFake(t, 1, reject, slow)
	startAgent(t, srv, t.TempDir())

	hf.addJob(testJob("41.srv", "touch "+ran+"\n", out))
	waitFor(t, agentTimeout, "failed event", func() bool { return len(hf.eventsFor("41.srv", api.EventFailed)) > 0 })
	ev := hf.eventsFor("41.srv", api.EventFailed)[0]
	if ev.Exit != model.ExitFailHookRerun || ev.Comment != "not here" {
		t.Errorf("rejected start: %+v", ev)
	}

	hf.addJob(testJob("42.srv", "touch "+ran+"\n", out))
	waitFor(t, agentTimeout, "failed event", func() bool { return len(hf.eventsFor("42.srv", api.EventFailed)) > 0 })
	ev = hf.eventsFor("42.srv", api.EventFailed)[0]
	if ev.Exit != model.ExitHookError || !strings.Contains(ev.Comment, "alarm call while running execjob_begin hook 'slow'") {
		t.Errorf("timed out start: %+v", ev)
	}
	// The offline is carried out before the failure is reported, so the
	// requeued job cannot land on this host again in between.
	if acts := hf.actionsSeen(); len(acts) != 1 || acts[0].Action != api.HookOffline || acts[0].Hook != "slow" ||
		acts[0].Host != "testhost" || acts[0].Event != "execjob_begin" {
		t.Errorf("fail_action requests when the failure was reported: %+v", acts)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("a job script ran despite its begin hook")
	}
}

// TestAgentStartupHookClearsVnodes: a successful exechost_startup hook with
// clear_vnodes_upon_recovery asks the server to clear hook offlines.
func TestAgentStartupHookClearsVnodes(t *testing.T) {
	out := t.TempDir()
	marker := filepath.Join(out, "startup")
	h := shellHook("st", "exechost_startup", "echo \"$STRATA_HOOK_EVENT $STRATA_HOOK_REQUESTOR\" > "+marker+"\n")
	h.FailAction = model.HookFailOfflineVnodes + "," + model.HookFailClearVnodes
	hf, srv := newHookFake(t, 2, h)
	startAgent(t, srv, t.TempDir())
	waitFor(t, agentTimeout, "clear request", func() bool {
		a := hf.actionsSeen()
		return len(a) == 1 && a[0].Action == api.HookClear && a[0].Event == "exechost_startup"
	})
	if got := readFile(t, marker); got != "exechost_startup pbs_mom\n" {
		t.Errorf("startup marker %q", got)
	}
}
