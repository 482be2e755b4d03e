package mom

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// `strata mom --simulate N` is one process that is N agents. It registers
// hosts <prefix>-00001 ... <prefix>-N through the ordinary registration
// route (one request per host, as an agent), then carries them all with one
// long poll for work, one heartbeat request and batched job events
// (server/api/sim.go). Jobs run virtually: a job "runs" for the runtime in
// its STRATA_SIM_RUNTIME variable, else its walltime, else
// SimOptions.Runtime, divided by SimOptions.Speed. Nothing is forked and no
// file is written: the server, the scheduler and Raft see exactly what real
// agents would make them see, which is what the simulator is for (docs/simulate.md).

// SimRuntimeVar and SimExitVar are the job variables (qsub -v) that set a
// simulated job's runtime (a Go duration like 90s, or PBS [[HH:]MM:]SS)
// and its exit status.
const (
	SimRuntimeVar = "STRATA_SIM_RUNTIME"
	SimExitVar    = "STRATA_SIM_EXIT"
)

// Defaults of the provisioning durations (virtual time).
const (
	DefaultSimProvTime   = 30 * time.Second
	DefaultSimRebootTime = 60 * time.Second
)

// SimOptions shape a simulation.
type SimOptions struct {
	// Hosts is how many hosts to simulate.
	Hosts int
	// Speed divides every virtual duration (runtimes, provisioning): 10
	// makes a one-minute job end after 6 s. Must be positive.
	Speed float64
	// Runtime is the runtime of a job with neither STRATA_SIM_RUNTIME nor
	// a walltime.
	Runtime time.Duration
	// ProvTime is how long a simulated provision hook runs; ProvFail is
	// the probability (0..1) that it fails (exit 2); ProvReboot makes a
	// successful one an OS provisioning (exit 0, then the host registers
	// again with a new boot id and the AOE as its image after
	// ProvRebootTime) instead of an application one (exit 1).
	ProvTime       time.Duration
	ProvFail       float64
	ProvReboot     bool
	ProvRebootTime time.Duration
	// Seed seeds the failure draws, so a run can be repeated.
	Seed uint64
	// RegisterParallel is how many registrations are in flight at once.
	RegisterParallel int
}

// Validate checks the options.
func (o *SimOptions) Validate() error {
	switch {
	case o.Hosts < 1 || o.Hosts > 999_999_999:
		return fmt.Errorf("simulate: %d hosts (want 1 to 999999999)", o.Hosts)
	case !(o.Speed > 0):
		return fmt.Errorf("simulate: speed %v must be positive", o.Speed)
	case o.ProvFail < 0 || o.ProvFail > 1:
		return fmt.Errorf("simulate: provisioning failure rate %v must be between 0 and 1", o.ProvFail)
	case o.Runtime < 0 || o.ProvTime < 0 || o.ProvRebootTime < 0:
		return fmt.Errorf("simulate: durations must not be negative")
	}
	return nil
}

// Simulator carries the simulated hosts of one process.
type Simulator struct {
	cfg    *Config
	opts   SimOptions
	client *api.Client
	logger *log.Logger

	// register receives hosts to (re-)register; kickEvents wakes the
	// event sender; wakeTimers the end-of-run timer loop.
	register   chan *simHost
	kickEvents chan struct{}
	wakeTimers chan struct{}

	mu    sync.Mutex
	hosts map[string]*simHost
	ends  runHeap
	rng   *rand.Rand
	// registeredOnce counts hosts registered at least once (for the log).
	registeredOnce int
	// interval is the heartbeat interval the server asked for.
	interval time.Duration
	// sessions numbers the runs, as session ids.
	sessions int
}

// simHost is one simulated host.
type simHost struct {
	name   string
	bootID string
	boots  int
	// registered is false until the registration succeeded and again when
	// the server asks for a new one; index is the work index of the last
	// answer (0: send everything).
	registered bool
	queued     bool // waiting in the register channel
	index      uint64
	image      *string // AOE after a simulated OS provisioning
	runs       map[string]*simRun
	lost       map[string]bool
	inWork     map[string]bool
	pending    []api.JobEvent
	sending    int    // events of pending in the batch on the wire
	provKey    string // provisioning attempt being simulated or done
}

// simRun is one run of a job on a simulated host.
type simRun struct {
	host    *simHost
	key     string
	jobID   string
	run     int
	ncpus   string
	started time.Time
	end     time.Time
	exit    int
	ended   bool
	acked   bool
	heapIdx int
}

// NewSimulator checks the configuration (cfg.Host is the prefix of the
// simulated hosts) and returns a simulator; Run starts it.
func NewSimulator(cfg *Config, opts SimOptions, client *api.Client, logger *log.Logger) (*Simulator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mom config: %w", err)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, fmt.Errorf("simulate: no server client")
	}
	if logger == nil {
		logger = log.Default()
	}
	if opts.RegisterParallel < 1 {
		opts.RegisterParallel = 32
	}
	s := &Simulator{
		cfg: cfg, opts: opts, client: client, logger: logger,
		register:   make(chan *simHost, opts.Hosts),
		kickEvents: make(chan struct{}, 1),
		wakeTimers: make(chan struct{}, 1),
		hosts:      make(map[string]*simHost, opts.Hosts),
		rng:        rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5eed)),
		interval:   cfg.HeartbeatInterval,
	}
	width := max(5, len(strconv.Itoa(opts.Hosts)))
	boot := strconv.FormatInt(time.Now().UnixNano(), 36)
	for i := 1; i <= opts.Hosts; i++ {
		name := fmt.Sprintf("%s-%0*d", cfg.Host, width, i)
		s.hosts[name] = &simHost{name: name, bootID: "sim-" + boot, runs: map[string]*simRun{}, lost: map[string]bool{}}
	}
	return s, nil
}

// HostNames returns the simulated host names, sorted.
func (s *Simulator) HostNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.hosts))
	for n := range s.hosts {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Run registers every host and serves until ctx ends. Jobs "running" on
// simulated hosts when it ends are reported lost by the server's usual
// path when a simulator starts again (their runs are not in its
// registration).
func (s *Simulator) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, name := range s.HostNames() {
		s.enqueueRegister(s.hosts[name])
	}
	var wg sync.WaitGroup
	for range s.opts.RegisterParallel {
		wg.Add(1)
		go func() { defer wg.Done(); s.registerLoop(ctx) }()
	}
	for range simEventSenders {
		wg.Add(1)
		go func() { defer wg.Done(); s.eventLoop(ctx) }()
	}
	wg.Add(3)
	go func() { defer wg.Done(); s.heartbeatLoop(ctx) }()
	go func() { defer wg.Done(); s.workLoop(ctx) }()
	go func() { defer wg.Done(); s.timerLoop(ctx) }()
	<-ctx.Done()
	wg.Wait()
	return nil
}

// enqueueRegister queues a host for registration once.
func (s *Simulator) enqueueRegister(h *simHost) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enqueueRegisterLocked(h)
}

func (s *Simulator) enqueueRegisterLocked(h *simHost) {
	h.registered = false
	if h.queued {
		return
	}
	h.queued = true
	s.register <- h // buffered for every host: never blocks
}

// registerLoop registers queued hosts through the ordinary agent route.
func (s *Simulator) registerLoop(ctx context.Context) {
	for {
		var h *simHost
		select {
		case <-ctx.Done():
			return
		case h = <-s.register:
		}
		b := newBackoff(100*time.Millisecond, 5*time.Second)
		for {
			req := s.registration(h)
			resp, err := s.client.Register(ctx, req)
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				if resp.HeartbeatInterval > 0 {
					s.mu.Lock()
					s.interval = time.Duration(resp.HeartbeatInterval) * time.Millisecond
					s.mu.Unlock()
				}
				break
			}
			s.logger.Printf("register %s: %v (retrying)", h.name, err)
			if !b.wait(ctx) {
				return
			}
		}
		s.mu.Lock()
		h.queued, h.registered, h.index = false, true, 0
		s.registeredOnce++
		if s.registeredOnce == len(s.hosts) {
			s.logger.Printf("simulate: %d hosts registered", len(s.hosts))
		}
		s.mu.Unlock()
	}
}

// registration is the host's RegisterRequest: one vnode named after the
// host with the configured resources, and the jobs it still "runs".
func (s *Simulator) registration(h *simHost) *api.RegisterRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	req := &api.RegisterRequest{Host: h.name, BootID: h.bootID, Version: api.PBSVersion, Jobs: []string{}, ImageAOE: h.image}
	res := map[string]string{}
	for k, v := range s.cfg.Resources {
		res[k] = v
	}
	if n, err := strconv.Atoi(res["ncpus"]); err == nil {
		req.Pcpus = n
	}
	req.Vnodes = []api.VnodeSpec{{Name: h.name, Resources: res}}
	for _, r := range h.runs {
		if !r.ended {
			req.Jobs = append(req.Jobs, r.jobID)
		}
	}
	return req
}

// heartbeatLoop sends every registered host's heartbeat in one request per
// interval; hosts the server does not know register again.
func (s *Simulator) heartbeatLoop(ctx context.Context) {
	for {
		s.mu.Lock()
		every := s.interval
		s.mu.Unlock()
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		s.mu.Lock()
		req := &api.SimHeartbeatRequest{}
		for _, h := range s.hosts {
			if h.registered {
				req.Hosts = append(req.Hosts, api.HeartbeatRequest{Host: h.name, BootID: h.bootID})
			}
		}
		s.mu.Unlock()
		if len(req.Hosts) == 0 {
			continue
		}
		resp, err := s.client.SimHeartbeat(ctx, req)
		if err != nil {
			if ctx.Err() == nil {
				s.logger.Printf("heartbeat %d hosts: %v", len(req.Hosts), err)
			}
			continue
		}
		if len(resp.Register) > 0 {
			s.logger.Printf("server asks %d hosts to register again", len(resp.Register))
		}
		s.mu.Lock()
		for _, name := range resp.Register {
			if h := s.hosts[name]; h != nil {
				s.enqueueRegisterLocked(h)
			}
		}
		s.mu.Unlock()
	}
}
