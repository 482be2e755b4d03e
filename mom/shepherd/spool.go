package shepherd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-hpc/strata/model"
)

// Names of the files in a job's spool directory.
const (
	FileJob      = "job.json"
	FileLaunch   = "launch.json"
	FileShepherd = "shepherd.pid"
	FileJobPid   = "job.pid"
	fileStdout   = "stdout"
	fileStderr   = "stderr"
	FileResult   = "result.json"
	FileLog      = "shepherd.log"

	FileSignals     = "signals.json"      // signal requests (agent)
	fileSignalsDone = "signals_done.json" // highest delivered request (shepherd)
	FileUsage       = "usage.json"        // live resources_used (shepherd)
)

// LaunchParams is what the agent tells a shepherd besides the job itself.
type LaunchParams struct {
	Host         string   `json:"host"`
	Spool        string   `json:"spool"`
	TmpDir       string   `json:"tmpdir"`
	KillDelayMs  int64    `json:"kill_delay_ms"`
	SelfCommand  []string `json:"self_command"` // the helpers' command: "strata mom-shepherd" (transfer)
	ScriptFile   string   `json:"script_file,omitempty"`
	RefuseReason string   `json:"refuse_reason,omitempty"`
	// UsageIntervalMs is how often the shepherd samples the job's usage
	// into usage.json (0: defaultUsageInterval).
	UsageIntervalMs int64 `json:"usage_interval_ms,omitempty"`
	// Cgroup is where the agent's job cgroups live; nil when jobs are
	// contained by process group only.
	Cgroup *CgroupLayout `json:"cgroup,omitempty"`
	// Transfer is how output and staged files reach other hosts.
	Transfer TransferConfig `json:"transfer"`
	// Identity is the job owner as the agent resolved it through NSS
	// (nil: the shepherd looks it up itself).
	Identity *Identity `json:"identity,omitempty"`
}

// ShepherdRecord identifies a running shepherd process beyond its pid.
type ShepherdRecord struct {
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
	BootID    string `json:"boot_id"`
}

// JobPidRecord is written by the shepherd once the job runs.
type JobPidRecord struct {
	Pid       int   `json:"pid"`
	StartUnix int64 `json:"start_unix"`
}

// Result is how a job ended, written by the shepherd as result.json.
type Result struct {
	// Kind is model.JobEventEnded, or model.JobEventFailed when the job never ran.
	Kind      string            `json:"kind"`
	Exit      int               `json:"exit_status"`
	SessionID int               `json:"session_id,omitempty"`
	Used      map[string]string `json:"resources_used,omitempty"`
	Comment   string            `json:"comment,omitempty"`
}

// WriteJSONAtomic writes v so that readers see either nothing or the whole
// file: a temporary file is synced and renamed over the name. It is for
// what must survive the host crashing: a job's result, hook settings.
func WriteJSONAtomic(path string, v any, perm os.FileMode) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return writeFileSynced(path, b, perm, true)
}

// WriteJSONRun writes a record of a running job (job.json, launch.json,
// the shepherd and job pid records, usage samples) atomically but without
// fsync. These records matter while the processes they name live; they
// survive an agent or shepherd crash in the page cache, and after a host
// crash those processes are gone anyway: a record that is then missing or
// torn makes the agent report the run lost, as it would with the record.
// The fsyncs they cost (five per job) were on the agent's launch path.
func WriteJSONRun(path string, v any, perm os.FileMode) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return writeFileSynced(path, b, perm, false)
}

func writeFileSynced(path string, b []byte, perm os.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(b)
	if werr == nil {
		werr = tmp.Chmod(perm)
	}
	if werr == nil && sync {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

// ReadJSON reads a JSON file; a missing file is reported with os.ErrNotExist
// in the chain so callers can tell "not yet" from "broken".
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// spoolRecord is the agent's view of a job on its own disk (job.json): the
// job as its work item gave it, stamped with the record's format so that
// an agent of a later release reads the records an earlier one left behind
// (the shepherds outlive the agent across an upgrade), and the launch
// parameters the shepherd needs besides the job. It is written in one
// place (WriteSpoolRecord) and read in one (ReadRecord).
type spoolRecord struct {
	// Format is spoolFormat when written; 0 in records written before the
	// field existed, which have the same layout.
	Format int `json:"spool_format"`
	// Launch is nil in records of earlier releases, which kept it in
	// launch.json: a file less per job (each file created and removed
	// costs the spool's file system an inode allocation).
	Launch *LaunchParams `json:"launch,omitempty"`
	*model.Job
}

// SpoolFormat is the layout of job.json written by this release. A record
// of a newer format is refused rather than misread.
const SpoolFormat = 1

// WriteSpoolRecord writes job.json, the run's record.
func WriteSpoolRecord(dir string, j *model.Job, lp *LaunchParams) error {
	return WriteJSONRun(filepath.Join(dir, FileJob), spoolRecord{Format: SpoolFormat, Launch: lp, Job: j}, 0o600)
}

// ReadJob returns the job of a run's record.
func ReadJob(dir string) (*model.Job, error) {
	j, _, err := ReadRecord(dir)
	return j, err
}

// ReadRecord returns the job of a run's record and its launch parameters
// (from launch.json when the record predates them; nil when neither has
// them).
func ReadRecord(dir string) (*model.Job, *LaunchParams, error) {
	rec := spoolRecord{Job: &model.Job{}}
	if err := ReadJSON(filepath.Join(dir, FileJob), &rec); err != nil {
		return nil, nil, err
	}
	if rec.Format > SpoolFormat {
		return nil, nil, fmt.Errorf("spool record %s has format %d, newer than this agent's %d", dir, rec.Format, SpoolFormat)
	}
	if rec.Launch == nil {
		var lp LaunchParams
		err := ReadJSON(filepath.Join(dir, FileLaunch), &lp)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		if err == nil {
			rec.Launch = &lp
		}
	}
	return rec.Job, rec.Launch, nil
}

// ReadResult returns the job's result, or nil when it has not ended.
func ReadResult(dir string) (*Result, error) {
	var r Result
	err := ReadJSON(filepath.Join(dir, FileResult), &r)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// ReadJobPid returns the job's pid record, or nil before the job started.
func ReadJobPid(dir string) (*JobPidRecord, error) {
	var r JobPidRecord
	err := ReadJSON(filepath.Join(dir, FileJobPid), &r)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// ShepherdAlive reports whether the shepherd recorded in dir still runs: same
// boot, same pid and same process start time.
func ShepherdAlive(dir string) bool {
	var rec ShepherdRecord
	if err := ReadJSON(filepath.Join(dir, FileShepherd), &rec); err != nil {
		return false
	}
	if rec.BootID != BootID() || rec.Pid <= 0 {
		return false
	}
	st, err := ProcStartTime(rec.Pid)
	return err == nil && st == rec.StartTime
}
