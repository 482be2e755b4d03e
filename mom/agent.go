package mom

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Agent is the node agent of one host. Its goroutines (session, work poll,
// event sender, one watcher per job) share the job table under mu.
type Agent struct {
	cfg    *Config
	client *api.Client
	logger *log.Logger
	spool  spool
	bootID string

	// reregister asks the session loop to register again (the server forgot
	// this host); kickEvents wakes the event sender.
	reregister chan struct{}
	kickEvents chan struct{}

	// hooks is the agent's copy of the hooks (hooks.go).
	hooks *hookStore
	// cgroups is where job cgroups are made; nil: process groups only.
	cgroups *cgroupLayout
	// bgCtx and bgWG are Run's context and wait group, for goroutines
	// started under a.mu (hooks_job.go); set before Run starts any.
	bgCtx context.Context
	bgWG  *sync.WaitGroup

	mu sync.Mutex
	// jobs holds every run with a spool record, by recordKey.
	jobs map[string]*record
	// lost remembers runs reported lost (listed by the server, unknown
	// here) so they are reported once, not at every work poll.
	lost map[string]bool
	// inWork holds the runs of the last work list; workSeen tells whether
	// one has arrived since the agent started.
	inWork   map[string]bool
	workSeen bool
	pending  []pendingEvent

	// metrics is the agent's registry (metrics.go).
	metrics *agentMetrics
}

// record is the agent's view of one run of a job.
type record struct {
	key    string
	job    *model.Job
	dir    string
	result *Result // nil while the job runs

	startedQueued bool
	endedQueued   bool
	endedAcked    bool
	killSent      bool
	stopWatch     context.CancelFunc

	// sigsWritten is the highest signal request written to signals.json
	// by this agent; usageSent is the last usage reported.
	sigsWritten int
	usageSent   string
}

// New checks the configuration and returns an agent; Run starts it.
func New(cfg *Config, client *api.Client, logger *log.Logger) (*Agent, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mom config: %w", err)
	}
	if err := checkShepherd(cfg.ShepherdCommand); err != nil {
		return nil, fmt.Errorf("mom: %w", err)
	}
	if client == nil {
		return nil, fmt.Errorf("mom: no server client")
	}
	if logger == nil {
		logger = log.Default()
	}
	a := &Agent{
		cfg:        cfg,
		client:     client,
		logger:     logger,
		spool:      spool{root: cfg.Spool},
		bootID:     bootID(),
		reregister: make(chan struct{}, 1),
		kickEvents: make(chan struct{}, 1),
		jobs:       map[string]*record{},
		lost:       map[string]bool{},
		inWork:     map[string]bool{},
	}
	a.hooks = newHookStore(cfg.Spool, logger)
	a.metrics = newAgentMetrics(a)
	return a, nil
}

// Run recovers the jobs of a previous agent from the spool, then registers
// and serves until ctx is cancelled. Cancelling leaves jobs running: their
// shepherds live in their own sessions and the next agent reattaches.
func (a *Agent) Run(ctx context.Context) error {
	if err := a.spool.init(); err != nil {
		return err
	}
	if err := a.hooks.load(); err != nil {
		return err
	}
	a.setupCgroups()
	if a.cgroups != nil {
		defer a.cgroups.RemoveAgentCgroup()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	a.bgCtx, a.bgWG = ctx, &wg
	if err := a.recover(ctx, &wg); err != nil {
		return err
	}
	if err := a.serveMetrics(ctx); err != nil {
		// Metrics are an aid: a taken port must not stop the host from
		// running jobs.
		a.logger.Printf("metrics: %v; running without the metrics endpoint", err)
	}
	registered := make(chan struct{})
	wg.Add(5)
	go func() { defer wg.Done(); a.hostHooksLoop(ctx, registered) }()
	go func() { defer wg.Done(); a.sessionLoop(ctx, registered) }()
	go func() { defer wg.Done(); a.workLoop(ctx, registered, &wg) }()
	go func() { defer wg.Done(); a.eventLoop(ctx) }()
	go func() { defer wg.Done(); a.usageLoop(ctx) }()
	a.kick()
	<-ctx.Done()
	wg.Wait()
	return nil
}

// kick wakes the event sender without blocking.
func (a *Agent) kick() {
	select {
	case a.kickEvents <- struct{}{}:
	default:
	}
}
