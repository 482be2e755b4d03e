package mom

import (
	"context"
	"path/filepath"
	"time"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// hostHookTick is how often the host hook loop looks for due periodic
// hooks (freq is in whole seconds).
const hostHookTick = time.Second

// hookActionAttempts bounds the retries of one fail_action request, so a
// long server outage does not stall the host hooks.
const hookActionAttempts = 8

// hostHooksLoop runs exechost_startup once the agent holds the current
// hooks after it started, then exechost_periodic hooks every freq seconds.
func (a *Agent) hostHooksLoop(ctx context.Context, registered <-chan struct{}) {
	select {
	case <-ctx.Done():
		return
	case <-registered:
	}
	tick := time.NewTicker(hostHookTick)
	defer tick.Stop()
	started := false
	last := map[string]time.Time{}
	for {
		if !started && a.hooks.current() {
			started = true
			a.runHostEvent(ctx, "exechost_startup")
		}
		if started {
			a.runPeriodic(ctx, last)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-a.hooks.changed:
		}
	}
}

// runHostEvent runs the hooks of a host event as the agent's user (a host
// event has no job owner to run as). For exechost_startup, a failed hook
// with offline_vnodes offlines the host's vnodes, and a successful one
// with clear_vnodes_upon_recovery brings back what a hook offlined.
func (a *Agent) runHostEvent(ctx context.Context, event string) {
	for _, h := range a.orderedHooks(event) {
		h := h
		a.runHostHook(ctx, &h, event)
	}
}

func (a *Agent) runHostHook(ctx context.Context, h *model.Hook, event string) {
	out := a.hostRunner().Run(ctx, h, hooks.Event{Type: event, Requestor: hookRequestor, RequestorHost: a.cfg.Host}, nil)
	logHookRun(a.logger, h, event, &out)
	if event != "exechost_startup" {
		return
	}
	switch {
	case out.Failed && hasFailAction(h, model.HookFailOfflineVnodes):
		a.hookAction(ctx, api.HookActionRequest{Host: a.cfg.Host, Hook: h.Name, Event: event, Action: api.HookOffline})
	case out.Accept && hasFailAction(h, model.HookFailClearVnodes):
		a.hookAction(ctx, api.HookActionRequest{Host: a.cfg.Host, Hook: h.Name, Event: event, Action: api.HookClear})
	}
}

// runPeriodic runs the exechost_periodic hooks that are due.
func (a *Agent) runPeriodic(ctx context.Context, last map[string]time.Time) {
	now := time.Now()
	for _, h := range a.orderedHooks("exechost_periodic") {
		h := h
		if t, ok := last[h.Name]; ok && now.Sub(t) < time.Duration(h.Freq)*time.Second {
			continue
		}
		last[h.Name] = now
		a.runHostHook(ctx, &h, "exechost_periodic")
	}
}

func (a *Agent) orderedHooks(event string) []model.Hook {
	set := a.hooks.snapshot()
	all := make(map[string]model.Hook, len(set.Hooks))
	for _, h := range set.Hooks {
		all[h.Name] = h
	}
	return model.OrderedHooks(all, event)
}

func (a *Agent) hostRunner() *hooks.Runner {
	return &hooks.Runner{Dir: filepath.Join(a.cfg.Spool, "hookscripts")}
}

// hookAction asks the server to carry out a fail_action, retrying a while.
func (a *Agent) hookAction(ctx context.Context, req api.HookActionRequest) {
	b := newBackoff(100*time.Millisecond, 5*time.Second)
	for i := 0; i < hookActionAttempts; i++ {
		err := a.client.HookAction(ctx, &req)
		if err == nil {
			a.logger.Printf("hook %s (%s): asked the server to %s", req.Hook, req.Event, req.Action)
			return
		}
		if ctx.Err() != nil {
			return
		}
		a.logger.Printf("hook %s: %s request: %v (retrying)", req.Hook, req.Action, err)
		if !b.wait(ctx) {
			return
		}
	}
	a.logger.Printf("hook %s: gave up asking the server to %s", req.Hook, req.Action)
}
