package mom

import (
	"path/filepath"
	"syscall"

	"github.com/strata-hpc/strata/model"
)

// signalLocked hands the run's signal requests to its shepherd: it writes
// them all to signals.json (the shepherd skips those it delivered) and
// pokes the shepherd once the job runs. Before that the shepherd would not
// yet catch the poke, and it reads the file when the job starts anyway.
// Caller holds a.mu.
func (a *Agent) signalLocked(rec *record, sigs []model.Sig) {
	path := filepath.Join(rec.dir, fileSignals)
	if err := writeJSONAtomic(path, signalRequests{Signals: sigs}, 0o600); err != nil {
		a.logger.Printf("job %s: %v", rec.job.ID, err)
		return
	}
	rec.sigsWritten = maxSigN(sigs)
	if pr, _ := readJobPid(rec.dir); pr == nil {
		return
	}
	var sr shepherdRecord
	if err := readJSON(filepath.Join(rec.dir, fileShepherd), &sr); err != nil || !shepherdAlive(rec.dir) {
		return // ended meanwhile
	}
	if err := syscall.Kill(sr.Pid, pokeSignal); err != nil {
		a.logger.Printf("job %s: poke shepherd %d: %v", rec.job.ID, sr.Pid, err)
	}
}
