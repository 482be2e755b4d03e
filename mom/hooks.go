package mom

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// hookFetchTimeout bounds one fetch of the hook set.
const hookFetchTimeout = 10 * time.Second

// hookStore holds the agent's current hook set, in memory and in the
// spool (so a restarted agent whose version is still current does not
// fetch again), and the latest version the server announced.
//
// A job may start only when the held version is the announced one: that
// is the whole delivery protocol. The server announces its hook_version in
// every register and work reply; a work reply lists the jobs to start and
// the version of the same state, so a job is never started with hooks
// older than those configured when it was sent.
type hookStore struct {
	path   string
	logger *log.Logger

	mu   sync.Mutex
	set  hookSet
	want uint64
	// changed is signalled (without blocking) whenever set or want moves.
	changed chan struct{}

	// fetchMu lets one fetch run at a time (registration and the work
	// loop may both ask).
	fetchMu sync.Mutex
}

func newHookStore(spoolRoot string, logger *log.Logger) *hookStore {
	return &hookStore{path: filepath.Join(spoolRoot, fileHooks), logger: logger, changed: make(chan struct{}, 1)}
}

// load reads the spooled copy. A missing file is an agent that never held
// hooks (or was reimaged): version 0, which differs from any configuration
// that ever had agent hooks.
func (s *hookStore) load() error {
	var set hookSet
	err := readJSON(s.path, &set)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("load hooks: %w", err)
	}
	s.mu.Lock()
	s.set = set
	s.mu.Unlock()
	return nil
}

// announce records the version the server says is current.
func (s *hookStore) announce(v uint64) {
	s.mu.Lock()
	moved := s.want != v
	s.want = v
	s.mu.Unlock()
	if moved {
		s.signal()
	}
}

// current reports whether the held hooks are the announced version.
func (s *hookStore) current() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.Version == s.want
}

// snapshot returns the held set (the slice is not shared with later sets:
// store replaces it whole).
func (s *hookStore) snapshot() hookSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
}

func (s *hookStore) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// sync announces v and, when the held version differs, fetches the set
// and stores it (spool first, so memory never claims a version the disk
// would lose in a restart).
func (s *hookStore) sync(ctx context.Context, fetch func(context.Context) (*api.HooksResponse, error), v uint64) error {
	s.announce(v)
	if s.current() {
		return nil
	}
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	if s.current() { // another caller fetched meanwhile
		return nil
	}
	fctx, cancel := context.WithTimeout(ctx, hookFetchTimeout)
	defer cancel()
	resp, err := fetch(fctx)
	if err != nil {
		return fmt.Errorf("fetch hooks (version %d): %w", v, err)
	}
	set := hookSet{Version: resp.Version, Hooks: resp.Hooks}
	if err := writeJSONAtomic(s.path, set, 0o600); err != nil {
		return fmt.Errorf("store hooks: %w", err)
	}
	s.logger.Printf("hooks: fetched version %d (%d hook(s) with agent events)", set.Version, len(set.Hooks))
	s.mu.Lock()
	s.set = set
	// The fetched version is the freshest word from the server: a hook
	// changed between the announcement and the fetch is already here.
	s.want = set.Version
	s.mu.Unlock()
	s.signal()
	return nil
}

// syncHooks brings the agent's hooks to version v; it reports whether they
// are current. Failures are logged; callers retry.
func (a *Agent) syncHooks(ctx context.Context, v uint64) bool {
	if err := a.hooks.sync(ctx, a.client.AgentHooks, v); err != nil {
		if ctx.Err() == nil {
			a.logger.Printf("%v (jobs wait until the hooks arrive; retrying)", err)
		}
		return false
	}
	return true
}

// hooksReadyLocked is the start gate: a job starts only with the current
// hooks. A job that waits keeps its prerun state on the server and no
// local record, so the next reconcile starts it. Caller holds a.mu.
func (a *Agent) hooksReadyLocked(j *model.Job) bool {
	if a.hooks.current() {
		return true
	}
	a.logger.Printf("job %s: waiting for the current hooks before starting it", j.ID)
	return false
}
