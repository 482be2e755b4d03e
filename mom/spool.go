package mom

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// Names of the files in a job's spool directory.
const (
	fileJob      = "job.json"
	fileLaunch   = "launch.json"
	fileScript   = "script"
	fileNodes    = "nodefile"
	fileShepherd = "shepherd.pid"
	fileJobPid   = "job.pid"
	fileStdout   = "stdout"
	fileStderr   = "stderr"
	fileResult   = "result.json"
	fileLog      = "shepherd.log"

	fileSignals     = "signals.json"      // signal requests (agent)
	fileSignalsDone = "signals_done.json" // highest delivered request (shepherd)
	fileUsage       = "usage.json"        // live resources_used (shepherd)
)

// spool knows the layout of the agent's spool directory.
type spool struct {
	root string
}

func (s spool) jobsDir() string        { return filepath.Join(s.root, "jobs") }
func (s spool) undeliveredDir() string { return filepath.Join(s.root, "undelivered") }

// jobDir is the directory of one run of a job. The run count is part of the
// name so that a requeued job's new run never meets an old run's files.
func (s spool) jobDir(jobID string, run int) string {
	return filepath.Join(s.jobsDir(), recordKey(jobID, run))
}

// recordKey names one run of a job.
func recordKey(jobID string, run int) string {
	return jobID + "." + strconv.Itoa(run)
}

// init creates the spool directories, private to the agent (0700): the
// job reads its script and node file from its aux directory (auxDir),
// never from the spool. Directories left by an older agent with wider
// modes are narrowed.
func (s spool) init() error {
	for _, d := range []string{s.root, s.jobsDir(), s.undeliveredDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create spool directory: %w", err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("spool directory mode: %w", err)
		}
	}
	return nil
}

// records lists the job directories present in the spool.
func (s spool) records() ([]string, error) {
	ents, err := os.ReadDir(s.jobsDir())
	if err != nil {
		return nil, fmt.Errorf("scan spool: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(s.jobsDir(), e.Name()))
		}
	}
	return out, nil
}

// launchParams is what the agent tells a shepherd besides the job itself.
type launchParams struct {
	Host         string   `json:"host"`
	Spool        string   `json:"spool"`
	TmpDir       string   `json:"tmpdir"`
	KillDelayMs  int64    `json:"kill_delay_ms"`
	SelfCommand  []string `json:"self_command"` // re-exec prefix for "deliver"
	ScriptFile   string   `json:"script_file,omitempty"`
	RefuseReason string   `json:"refuse_reason,omitempty"`
	// UsageIntervalMs is how often the shepherd samples the job's usage
	// into usage.json (0: defaultUsageInterval).
	UsageIntervalMs int64 `json:"usage_interval_ms,omitempty"`
	// Cgroup is where the agent's job cgroups live; nil when jobs are
	// contained by process group only.
	Cgroup *cgroupLayout `json:"cgroup,omitempty"`
	// Transfer is how output and staged files reach other hosts.
	Transfer TransferConfig `json:"transfer"`
}

// shepherdRecord identifies a running shepherd process beyond its pid.
type shepherdRecord struct {
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
	BootID    string `json:"boot_id"`
}

// jobPidRecord is written by the shepherd once the job runs.
type jobPidRecord struct {
	Pid       int   `json:"pid"`
	StartUnix int64 `json:"start_unix"`
}

// Result is how a job ended, written by the shepherd as result.json.
type Result struct {
	// Kind is api.EventEnded, or api.EventFailed when the job never ran.
	Kind      string            `json:"kind"`
	Exit      int               `json:"exit_status"`
	SessionID int               `json:"session_id,omitempty"`
	Used      map[string]string `json:"resources_used,omitempty"`
	Comment   string            `json:"comment,omitempty"`
}

// writeJSONAtomic writes v so that readers see either nothing or the whole
// file: a temporary file is synced and renamed over the name. It is for
// what must survive the host crashing: a job's result, hook settings.
func writeJSONAtomic(path string, v any, perm os.FileMode) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return writeFileSynced(path, b, perm, true)
}

// writeJSONRun writes a record of a running job (job.json, launch.json,
// the shepherd and job pid records, usage samples) atomically but without
// fsync. These records matter while the processes they name live; they
// survive an agent or shepherd crash in the page cache, and after a host
// crash those processes are gone anyway: a record that is then missing or
// torn makes the agent report the run lost, as it would with the record.
// The fsyncs they cost (five per job) were on the agent's launch path.
func writeJSONRun(path string, v any, perm os.FileMode) error {
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

// readJSON reads a JSON file; a missing file is reported with os.ErrNotExist
// in the chain so callers can tell "not yet" from "broken".
func readJSON(path string, v any) error {
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
// (the shepherds outlive the agent across an upgrade). It is written in one
// place (writeSpoolRecord) and read in one (readJob).
type spoolRecord struct {
	// Format is spoolFormat when written; 0 in records written before the
	// field existed, which have the same layout.
	Format int `json:"spool_format"`
	*model.Job
}

// spoolFormat is the layout of job.json written by this release. A record
// of a newer format is refused rather than misread.
const spoolFormat = 1

func writeSpoolRecord(dir string, j *model.Job) error {
	return writeJSONRun(filepath.Join(dir, fileJob), spoolRecord{Format: spoolFormat, Job: j}, 0o600)
}

func readJob(dir string) (*model.Job, error) {
	rec := spoolRecord{Job: &model.Job{}}
	if err := readJSON(filepath.Join(dir, fileJob), &rec); err != nil {
		return nil, err
	}
	if rec.Format > spoolFormat {
		return nil, fmt.Errorf("spool record %s has format %d, newer than this agent's %d", dir, rec.Format, spoolFormat)
	}
	return rec.Job, nil
}

// readResult returns the job's result, or nil when it has not ended.
func readResult(dir string) (*Result, error) {
	var r Result
	err := readJSON(filepath.Join(dir, fileResult), &r)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// readJobPid returns the job's pid record, or nil before the job started.
func readJobPid(dir string) (*jobPidRecord, error) {
	var r jobPidRecord
	err := readJSON(filepath.Join(dir, fileJobPid), &r)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// shepherdAlive reports whether the shepherd recorded in dir still runs: same
// boot, same pid and same process start time.
func shepherdAlive(dir string) bool {
	var rec shepherdRecord
	if err := readJSON(filepath.Join(dir, fileShepherd), &rec); err != nil {
		return false
	}
	if rec.BootID != bootID() || rec.Pid <= 0 {
		return false
	}
	st, err := procStartTime(rec.Pid)
	return err == nil && st == rec.StartTime
}
