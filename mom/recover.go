package mom

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// recover rebuilds the job table from the spool left by a previous agent:
// a live shepherd is watched again, a result is reported, and a record with
// neither (the shepherd died, e.g. the host rebooted) is reported failed
// with ExitInitAbort.
func (a *Agent) recover(ctx context.Context, wg *sync.WaitGroup) error {
	dirs, err := a.spool.records()
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, dir := range dirs {
		j, err := readJob(dir)
		if err != nil {
			// Without job.json the run cannot even be named to the server;
			// the record is useless and would block nothing, so drop it.
			a.logger.Printf("spool record %s is unreadable (%v); removing it", dir, err)
			os.RemoveAll(dir)
			continue
		}
		rec := &record{key: recordKey(j.ID, j.RunCount), job: j, dir: dir}
		if filepath.Base(dir) != rec.key {
			a.logger.Printf("spool record %s does not match job %s run %d; ignoring it", dir, j.ID, j.RunCount)
			continue
		}
		a.jobs[rec.key] = rec
		res, err := readResult(dir)
		if err != nil {
			a.logger.Printf("job %s: unreadable result (%v); reporting it lost", j.ID, err)
		}
		switch {
		case res != nil:
			a.logger.Printf("job %s: ended while the agent was away", j.ID)
			a.finishLocked(rec, res)
		case shepherdAlive(dir):
			a.logger.Printf("job %s: reattached to its shepherd", j.ID)
			a.watchLocked(ctx, wg, rec)
		default:
			a.logger.Printf("job %s: shepherd is gone and left no result; reporting the job lost", j.ID)
			a.killLeftoverCgroup(dir)
			a.finishLocked(rec, a.lostResult(dir))
		}
	}
	return nil
}

// lostResult records that a run's shepherd vanished without a result, so a
// later agent does not have to reach the same conclusion again.
func (a *Agent) lostResult(dir string) *Result {
	res := &Result{
		Kind:    api.EventFailed,
		Exit:    model.ExitInitAbort,
		Comment: "job lost: its shepherd is gone (agent host restarted?)",
	}
	if err := writeJSONAtomic(filepath.Join(dir, fileResult), res, 0o600); err != nil {
		a.logger.Printf("record lost result in %s: %v", dir, err)
	}
	return res
}

// supervisedJobs lists the jobs to name in a registration: those still
// running here and those that ended here but whose end is not yet
// acknowledged (the server must wait for their result, not declare them
// lost).
func (a *Agent) supervisedJobs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ids []string
	for _, k := range sortedKeys(a.jobs) {
		rec := a.jobs[k]
		if rec.result == nil || rec.result.Kind == api.EventEnded {
			ids = append(ids, rec.job.ID)
		}
	}
	return ids
}
