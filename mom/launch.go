package mom

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/mom/shepherd"
	"github.com/strata-hpc/strata/server/api"
)

// ownersToStart resolves the owners of the runs reconcile is about to
// start, outside a.mu: a name-service lookup (LDAP, sssd) or a home
// directory on a hung file server must not hold up every watcher, report
// and launch behind the agent's lock. Keyed by record key.
func (a *Agent) ownersToStart(jobs []*api.WorkItem) map[string]*shepherd.Identity {
	a.mu.Lock()
	var todo []*model.Job
	for _, j := range jobs {
		if j.Substate == model.SubPrerun && a.jobs[recordKey(j.ID, j.RunCount)] == nil {
			todo = append(todo, j.Job)
		}
	}
	a.mu.Unlock()
	owners := make(map[string]*shepherd.Identity, len(todo))
	for _, j := range todo {
		id := shepherd.LookupIdentity(j.UID, j.GID, j.User)
		owners[recordKey(j.ID, j.RunCount)] = &id
	}
	return owners
}

// startLocked creates the run's spool record and launches its shepherd
// as owner (resolved by ownersToStart; nil: looked up here). Caller holds
// a.mu. A failure to launch becomes a failed result, reported like any
// other, so the server is never left waiting.
func (a *Agent) startLocked(ctx context.Context, wg *sync.WaitGroup, j *model.Job, owner *shepherd.Identity) {
	if !a.hooksReadyLocked(j) {
		return
	}
	key := recordKey(j.ID, j.RunCount)
	dir := a.spool.jobDir(j.ID, j.RunCount)
	// 0700: only the agent and its shepherd read a run's record.
	if err := os.Mkdir(dir, 0o700); err != nil {
		// A directory without an in-memory record means something else
		// wrote the spool; refusing is safer than running twice.
		a.logger.Printf("job %s: create spool record: %v", j.ID, err)
		if !a.lost[key] {
			a.lost[key] = true
			a.queueLocked(key, api.JobEvent{JobID: j.ID, Kind: api.EventFailed, Exit: model.ExitFail1, Run: j.RunCount,
				Comment: fmt.Sprintf("cannot create spool record: %v", err)})
		}
		return
	}
	rec := &record{key: key, job: j, dir: dir}
	a.jobs[key] = rec
	if err := a.launch(rec, owner); err != nil {
		a.logger.Printf("job %s: %v", j.ID, err)
		res := failed(model.ExitFail1, "%v", err)
		if werr := writeJSONAtomic(filepath.Join(dir, fileResult), res, 0o600); werr != nil {
			a.logger.Printf("job %s: record failure: %v", j.ID, werr)
		}
		a.finishLocked(rec, res)
		return
	}
	a.logger.Printf("job %s (run %d): shepherd started", j.ID, j.RunCount)
	a.watchLocked(ctx, wg, rec)
}

// launch writes the job's record and starts its shepherd in a new session,
// so the shepherd outlives this agent. The shepherd waits for a go byte
// sent only after its pid record is safely on disk.
//
// Every file created in the spool costs an inode allocation, which on a
// busy host is a large part of a short job's cost: the launch parameters
// travel inside job.json, and the shepherds share one log
// (<spool>/shepherd.log) instead of one per job.
func (a *Agent) launch(rec *record, owner *shepherd.Identity) error {
	lp := launchParams{
		Host:        a.cfg.Host,
		Spool:       a.cfg.Spool,
		TmpDir:      a.cfg.TmpDir,
		KillDelayMs: a.cfg.KillDelay.Milliseconds(),
		SelfCommand: a.helperCommand(),
		// The shepherd samples as often as the agent reports.
		UsageIntervalMs: a.cfg.UsageInterval.Milliseconds(),
		Cgroup:          a.cgroups,
		Transfer:        a.cfg.Transfer,
	}
	lp.Transfer.LocalNames = shepherd.LocalNames(a.cfg.Host)
	// The owner is resolved by the agent, through NSS (this binary has
	// cgo), so that the static shepherd runs the job as the user with the
	// groups the host's name services give, LDAP or sssd included.
	if owner == nil {
		id := shepherd.LookupIdentity(rec.job.UID, rec.job.GID, rec.job.User)
		owner = &id
	}
	lp.Identity = owner
	if err := shepherd.WriteSpoolRecord(rec.dir, rec.job, &lp); err != nil {
		return err
	}
	if err := a.writeJobHooks(rec.dir); err != nil {
		return err
	}
	// Opening the existing log allocates nothing, and reopening it at
	// each launch follows a rotation.
	logf, err := os.OpenFile(filepath.Join(a.cfg.Spool, fileLog), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open shepherd log: %w", err)
	}
	defer logf.Close()
	argv := append(append([]string(nil), a.cfg.ShepherdCommand...), shepherdRun, rec.dir)
	cmd := &exec.Cmd{
		Path:        argv[0],
		Args:        argv,
		Dir:         "/",
		Stdout:      logf,
		Stderr:      logf,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	goPipe, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("shepherd pipe: %w", err)
	}
	defer goPipe.Close()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start shepherd: %w", err)
	}
	// Reap the shepherd if it exits while this agent lives; after an
	// agent restart init does.
	go func() { _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	st, err := procStartTime(pid)
	if err == nil {
		err = writeJSONRun(filepath.Join(rec.dir, fileShepherd), shepherdRecord{Pid: pid, StartTime: st, BootID: a.bootID}, 0o600)
	}
	if err != nil {
		// Closing the pipe without the go byte makes the shepherd exit
		// without running the job.
		return fmt.Errorf("record shepherd: %w", err)
	}
	if _, err := goPipe.Write([]byte{'g'}); err != nil {
		return fmt.Errorf("release shepherd: %w", err)
	}
	return nil
}

// ShepherdExecutable is the name of the shepherd executable
// (cmd/strata-shepherd), found in the directory of the agent's own.
const ShepherdExecutable = "strata-shepherd"

// helperCommand starts the helpers a shepherd runs as the job's owner
// (the transfer helper, in the agent's own executable).
func (a *Agent) helperCommand() []string {
	if len(a.cfg.HelperCommand) > 0 {
		return a.cfg.HelperCommand
	}
	return a.cfg.ShepherdCommand
}

// checkShepherd fails the agent's start when the shepherd executable is
// missing, rather than every job it is given.
func checkShepherd(cmd []string) error {
	if len(cmd) == 0 {
		return fmt.Errorf("shepherd command: cannot determine this executable's path")
	}
	st, err := os.Stat(cmd[0])
	if err == nil && (!st.Mode().IsRegular() || st.Mode()&0o111 == 0) {
		err = fmt.Errorf("not an executable file")
	}
	if err != nil {
		return fmt.Errorf("job shepherd %s: %w (%s is installed next to the strata executable: make install, or make build for bin/)", cmd[0], err, ShepherdExecutable)
	}
	return nil
}
