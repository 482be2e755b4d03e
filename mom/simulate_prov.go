package mom

import (
	"context"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/hooks"
	"github.com/strata-hpc/strata/server/api"
)

// Simulated provisioning: when the work poll lists a running provisioning
// operation for a simulated host (a provision hook in mode "agent" exists
// on the server), the simulator "runs the hook" for SimOptions.ProvTime
// (scaled by Speed) and reports through the ordinary report route what a
// hook would have exited with: 1 (application provisioning done), 2 with
// probability ProvFail, or, with ProvReboot, 0 followed by a "reboot": the
// host registers again after ProvRebootTime with a new boot id and the
// AOE as its image, which is how the server sees a real OS provisioning
// complete.

// provisionLocked starts simulating an attempt the first time it is listed.
func (s *Simulator) provisionLocked(ctx context.Context, h *simHost, p *api.ProvisionWork) {
	if p == nil || p.Host != h.name || h.provKey == p.Key() {
		return
	}
	h.provKey = p.Key()
	exit := 1
	if s.rng.Float64() < s.opts.ProvFail {
		exit = 2
	} else if s.opts.ProvReboot {
		exit = 0
	}
	work := *p
	delay := s.scaled(s.opts.ProvTime)
	go func() {
		if !sleepCtx(ctx, delay) {
			return
		}
		s.reportProvision(ctx, h, &work, exit)
	}()
}

// reportProvision sends the simulated hook's exit until acknowledged, and
// after an exit 0 "reboots" the host.
func (s *Simulator) reportProvision(ctx context.Context, h *simHost, p *api.ProvisionWork, exit int) {
	b := newBackoff(100*time.Millisecond, 2*time.Second)
	for {
		err := s.client.ProvisionReport(ctx, &api.ProvisionReport{Host: h.name, Attempt: p.Attempt, Kind: hooks.ProvExited, Exit: exit,
			Message: "simulated provisioning"})
		if err == nil {
			break
		}
		s.logger.Printf("provision report %s: %v (retrying)", h.name, err)
		if !b.wait(ctx) {
			return
		}
	}
	if exit != 0 {
		return
	}
	if !sleepCtx(ctx, s.scaled(s.opts.ProvRebootTime)) {
		return
	}
	s.mu.Lock()
	aoe := p.AOE
	h.boots++
	h.bootID = h.bootID + "-r" + strconv.Itoa(h.boots)
	h.image = &aoe
	s.enqueueRegisterLocked(h)
	s.mu.Unlock()
}

// scaled divides a virtual duration by the speed factor.
func (s *Simulator) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) / s.opts.Speed)
}

// sleepCtx waits d, or returns false when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
