package mom

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// sessionLoop registers the host, then heartbeats; it registers again
// whenever the server says it does not know the host. registered is closed
// after the first successful registration.
func (a *Agent) sessionLoop(ctx context.Context, registered chan struct{}) {
	var once sync.Once
	for {
		resp, ok := a.register(ctx)
		if !ok {
			return
		}
		// A restarted or reimaged agent gets the current hooks before it
		// runs anything; a failure here is retried by the work loop.
		a.syncHooks(ctx, resp.HookVersion)
		once.Do(func() { close(registered) })
		interval := a.cfg.HeartbeatInterval
		if resp.HeartbeatInterval > 0 {
			interval = time.Duration(resp.HeartbeatInterval) * time.Millisecond
		}
		if !a.heartbeat(ctx, interval) {
			return
		}
	}
}

// register retries with backoff until the server accepts the registration;
// it returns false when ctx ends first.
func (a *Agent) register(ctx context.Context) (*api.RegisterResponse, bool) {
	b := newBackoff(100*time.Millisecond, 10*time.Second)
	for {
		req := a.registerRequest()
		resp, err := a.client.Register(ctx, req)
		a.metrics.contact(false, err)
		if ctx.Err() != nil {
			return nil, false
		}
		if err == nil {
			a.logger.Printf("registered host %s with %d vnode(s), %d supervised job(s)", req.Host, len(req.Vnodes), len(req.Jobs))
			return resp, true
		}
		a.logger.Printf("register with %s: %v (retrying)", a.cfg.Server, err)
		if !b.wait(ctx) {
			return nil, false
		}
	}
}

// heartbeat beats every interval until the server forgets the host (returns
// true: register again) or ctx ends (returns false).
func (a *Agent) heartbeat(ctx context.Context, interval time.Duration) bool {
	t := time.NewTicker(interval)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return false
		case <-a.reregister:
			return true
		case <-t.C:
		}
		err := a.client.Heartbeat(ctx, &api.HeartbeatRequest{Host: a.cfg.Host, BootID: a.announcedBootID()})
		a.metrics.contact(true, err)
		if ctx.Err() != nil {
			return false
		}
		if pe, ok := model.AsPBSError(err); ok && pe.Code == model.PBSEUnknownNode {
			a.logger.Printf("server does not know host %s; registering again", a.cfg.Host)
			return true
		}
		// Log a failing server once per outage, not at every beat.
		if err != nil && !failing {
			a.logger.Printf("heartbeat: %v", err)
		} else if err == nil && failing {
			a.logger.Printf("heartbeat: server reachable again")
		}
		failing = err != nil
	}
}

// checkUnknownHost asks the session loop to register again when err says the
// server does not know this host.
func (a *Agent) checkUnknownHost(err error) {
	if pe, ok := model.AsPBSError(err); ok && pe.Code == model.PBSEUnknownNode {
		select {
		case a.reregister <- struct{}{}:
		default:
		}
	}
}

// registerRequest describes the host, its vnodes and the jobs it supervises.
func (a *Agent) registerRequest() *api.RegisterRequest {
	return &api.RegisterRequest{
		Host:    a.cfg.Host,
		BootID:  a.announcedBootID(), // provisioning: boot_id_file override
		Version: api.PBSVersion,
		Pcpus:   runtime.NumCPU(),
		Vnodes:  a.cfg.vnodeSpecs(),
		Jobs:    a.supervisedJobs(),
		// Provisioning: the AOE detected from aoe_file (nil: cannot tell).
		ImageAOE: a.imageAOE(),
	}
}

// vnodeSpecs is the default vnode named after the host, or the configured
// [[vnode]] entries.
func (c *Config) vnodeSpecs() []api.VnodeSpec {
	if len(c.Vnodes) == 0 {
		return []api.VnodeSpec{{
			Name: c.Host, Resources: copyMap(c.Resources), Priority: c.SortPriority,
			ProvEnable: c.ProvisionEnable, CurrentAOE: c.CurrentAOE,
		}}
	}
	out := make([]api.VnodeSpec, 0, len(c.Vnodes))
	for _, v := range c.Vnodes {
		out = append(out, api.VnodeSpec{
			Name: v.Name, Resources: copyMap(v.Resources), Priority: v.SortPriority,
			Sharing: v.Sharing, ProvEnable: v.ProvisionEnable, CurrentAOE: v.CurrentAOE,
		})
	}
	return out
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
