package mom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// usageLoop reports the usage of every running job each usage interval,
// all in one events call.
func (a *Agent) usageLoop(ctx context.Context) {
	t := time.NewTicker(a.cfg.UsageInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		a.reportUsage()
	}
}

// reportUsage queues a usage event for each running job whose usage.json
// changed since the last report. A usage event still waiting to be sent is
// replaced rather than joined by another, so an unreachable server does
// not make them pile up.
func (a *Agent) reportUsage() {
	a.mu.Lock()
	defer a.mu.Unlock()
	queued := false
	for _, key := range sortedKeys(a.jobs) {
		rec := a.jobs[key]
		if rec.result != nil || !rec.startedQueued {
			continue
		}
		b, err := os.ReadFile(filepath.Join(rec.dir, fileUsage))
		if err != nil || string(b) == rec.usageSent {
			continue
		}
		var used map[string]string
		if err := json.Unmarshal(b, &used); err != nil || len(used) == 0 {
			continue
		}
		rec.usageSent = string(b)
		// Signal delivery is tracked by the shepherd in the spool, not
		// acknowledged to the server: requests are delivered once per run.
		ev := api.JobEvent{JobID: rec.job.ID, Kind: api.EventUsage, Run: rec.job.RunCount, Used: used}
		replaced := false
		for i := range a.pending {
			if a.pending[i].key == key && a.pending[i].ev.Kind == api.EventUsage {
				a.pending[i].ev = ev
				replaced = true
				break
			}
		}
		if !replaced {
			a.pending = append(a.pending, pendingEvent{key: key, ev: ev})
			queued = true
		}
	}
	if queued {
		a.kick()
	}
}
