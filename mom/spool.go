package mom

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
