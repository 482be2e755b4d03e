package mom

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// fakeServer implements the four agent routes of the server API with just
// enough state for agent tests: a work list that long-polls on an index,
// and a log of what the agent said.
type fakeServer struct {
	mu            sync.Mutex
	index         uint64
	changed       chan struct{} // closed at every change
	jobs          map[string]*model.Job
	events        []api.JobEvent
	registrations []api.RegisterRequest
	forgetHost    bool // answer the next heartbeat with "unknown node"
}

func newFakeServer(t *testing.T) (*fakeServer, *httptest.Server) {
	f := &fakeServer{index: 1, changed: make(chan struct{}), jobs: map[string]*model.Job{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/agent/register", f.register)
	mux.HandleFunc("POST /v1/agent/heartbeat", f.heartbeat)
	mux.HandleFunc("GET /v1/agent/work", f.work)
	mux.HandleFunc("POST /v1/agent/events", f.eventsHandler)
	return f, startTLSServer(t, mux)
}

func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// bumpLocked records a change and wakes long-polls. Caller holds f.mu.
func (f *fakeServer) bumpLocked() {
	f.index++
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *fakeServer) register(w http.ResponseWriter, r *http.Request) {
	var req api.RegisterRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		reply(w, 400, model.Err(model.PBSEInvalidRequest))
		return
	}
	f.mu.Lock()
	f.registrations = append(f.registrations, req)
	f.mu.Unlock()
	reply(w, 200, api.RegisterResponse{ServerName: "srv", HeartbeatInterval: 50})
}

func (f *fakeServer) heartbeat(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	forget := f.forgetHost
	f.forgetHost = false
	f.mu.Unlock()
	if forget {
		reply(w, 404, model.Errorf(model.PBSEUnknownNode, "testhost"))
		return
	}
	reply(w, 200, struct{}{})
}

func (f *fakeServer) work(w http.ResponseWriter, r *http.Request) {
	idx, _ := strconv.ParseUint(r.URL.Query().Get("index"), 10, 64)
	wait, _ := time.ParseDuration(r.URL.Query().Get("wait"))
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		f.mu.Lock()
		if f.index > idx {
			resp := api.WorkResponse{Index: f.index}
			for _, id := range sortedKeys(f.jobs) {
				resp.Jobs = append(resp.Jobs, api.NewWorkItem(f.jobs[id].Copy()))
			}
			f.mu.Unlock()
			reply(w, 200, resp)
			return
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			f.mu.Lock()
			resp := api.WorkResponse{Index: f.index}
			for _, id := range sortedKeys(f.jobs) {
				resp.Jobs = append(resp.Jobs, api.NewWorkItem(f.jobs[id].Copy()))
			}
			f.mu.Unlock()
			reply(w, 200, resp)
			return
		case <-r.Context().Done():
			return
		}
	}
}

// eventsHandler applies events as the real server would: started moves the
// job to substate 42, ended/failed remove it from the work list. Events of
// another run are logged but ignored.
func (f *fakeServer) eventsHandler(w http.ResponseWriter, r *http.Request) {
	var req api.EventsRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		reply(w, 400, model.Err(model.PBSEInvalidRequest))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ev := range req.Events {
		f.events = append(f.events, ev)
		j := f.jobs[ev.JobID]
		if j == nil || j.RunCount != ev.Run {
			continue
		}
		switch ev.Kind {
		case api.EventStarted:
			j.Substate = model.SubRunning
			j.SessionID = ev.SessionID
		case api.EventEnded, api.EventFailed:
			delete(f.jobs, ev.JobID)
		}
	}
	f.bumpLocked()
	reply(w, 200, struct{}{})
}

// addJob puts a job on the work list.
func (f *fakeServer) addJob(j *model.Job) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.jobs[j.ID] = j
	f.bumpLocked()
}

// update changes a listed job.
func (f *fakeServer) update(id string, fn func(*model.Job)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f.jobs[id])
	f.bumpLocked()
}

// eventsFor returns the events received for a job, of one kind or all.
func (f *fakeServer) eventsFor(id, kind string) []api.JobEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []api.JobEvent
	for _, ev := range f.events {
		if ev.JobID == id && (kind == "" || ev.Kind == kind) {
			out = append(out, ev)
		}
	}
	return out
}

func (f *fakeServer) registrationCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.registrations)
}

func (f *fakeServer) lastRegistration() api.RegisterRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.registrations[len(f.registrations)-1]
}

// runningAgent is an agent under test.
type runningAgent struct {
	agent  *Agent
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // Run's error, valid after done
}

// stop cancels the agent and waits for Run to return.
func (ra *runningAgent) stop(t *testing.T) {
	t.Helper()
	ra.cancel()
	select {
	case <-ra.done:
		if ra.err != nil {
			t.Errorf("agent Run: %v", ra.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agent did not stop")
	}
}

// startAgent runs an agent for host "testhost" against srv with the given
// spool; it is stopped when the test ends.
func startAgent(t *testing.T, srv *httptest.Server, spoolDir string) *runningAgent {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Server = strings.TrimPrefix(srv.URL, "http://")
	cfg.TLS = testAgentFiles()
	cfg.Host = "testhost"
	cfg.Spool = spoolDir
	cfg.TmpDir = spoolDir
	cfg.KillDelay = 300 * time.Millisecond
	cfg.HeartbeatInterval = 50 * time.Millisecond
	cfg.ShepherdCommand = shepherdCommand
	cfg.HelperCommand = shepherdCommand
	a, err := New(cfg, api.NewTCPClient(cfg.Server, testAgentCerts(t)), log.New(os.Stderr, "mom-test: ", log.Lmicroseconds))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ra := &runningAgent{agent: a, cancel: cancel, done: make(chan struct{})}
	go func() {
		ra.err = a.Run(ctx)
		close(ra.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-ra.done
	})
	return ra
}
