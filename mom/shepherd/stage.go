package shepherd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
)

// Stage-in and stage-out (qsub -W stagein/stageout), on the mother
// superior: stage-in before the job starts (after the execjob_begin
// hooks); stage-out after it ends, before output delivery; staged-in
// files are removed at the very end, as PBS removes them. The copies are
// made by the transfer helper as the job's owner (stage_helper.go).

// transfer runs the helper with the given items; files are the spooled
// outputs the deliver items name by index.
func (r *jobRunner) transfer(items []TransferItem, files []*os.File) ([]TransferResult, error) {
	if len(r.params.SelfCommand) == 0 {
		return nil, fmt.Errorf("no helper command to copy files with")
	}
	req := TransferRequest{
		Config: r.transferConfig(),
		User:   SSHUser{UID: r.id.UID, Name: r.id.Name, Home: r.id.Home},
		Umask:  r.job.JobUmask(),
		Items:  items,
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode transfer request: %w", err)
	}
	argv := append(append([]string(nil), r.params.SelfCommand...), shepherdTransfer)
	// The helper runs as the owner, who can stop it or make it print
	// anything: what is read back is capped, and a helper that does not
	// finish within the transfer timeout is killed, so the job's end (and
	// its resources) cannot be held hostage.
	var stdout, stderr bytes.Buffer
	cmd := &exec.Cmd{
		Path:        argv[0],
		Args:        argv,
		Dir:         "/",
		Stdin:       bytes.NewReader(body),
		Stdout:      &cappedWriter{w: &stdout, n: maxHelperOutput},
		Stderr:      &cappedWriter{w: &stderr, n: maxHelperOutput},
		ExtraFiles:  files,
		SysProcAttr: &syscall.SysProcAttr{Credential: r.credential()},
	}
	if err := withUmask(r.job.JobUmask(), cmd.Start); err != nil {
		return nil, fmt.Errorf("transfer helper: %w", err)
	}
	timeout := r.params.Transfer.Timeout
	if timeout <= 0 {
		timeout = DefaultTransferTimeout
	}
	timer := time.AfterFunc(timeout, func() { _ = cmd.Process.Kill() })
	werr := cmd.Wait()
	if !timer.Stop() {
		return nil, fmt.Errorf("copy did not finish within %s (transfer_timeout): stopped", timeout)
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		r.logger.Printf("transfer helper: %s", msg)
	}
	var results []TransferResult
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil || len(results) != len(items) {
		if werr != nil {
			return nil, fmt.Errorf("transfer helper: %w", werr)
		}
		return nil, fmt.Errorf("transfer helper: bad answer")
	}
	for i := range results {
		if len(results[i].Err) > maxCopyError {
			results[i].Err = results[i].Err[:maxCopyError] + "..."
		}
	}
	return results, nil
}

// Bounds on what the owner-run helper can hand back.
const (
	maxHelperOutput = 1 << 20
	maxCopyError    = 1024
	// DefaultTransferTimeout applies when the launch record has none.
	DefaultTransferTimeout = 30 * time.Minute
)

// cappedWriter keeps the first n bytes and swallows the rest, so the
// writer never blocks or fails.
type cappedWriter struct {
	w *bytes.Buffer
	n int
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if k := min(len(p), c.n); k > 0 {
		c.w.Write(p[:k])
		c.n -= k
	}
	return len(p), nil
}

// transferConfig is the launch record's, with this host's names filled
// in when the record predates them.
func (r *jobRunner) transferConfig() TransferConfig {
	c := r.params.Transfer
	if len(c.LocalNames) == 0 {
		c.LocalNames = LocalNames(r.params.Host)
	}
	return c
}

// stageIn copies the job's stagein list. On failure the files already
// copied are removed and the result says the job must wait and be tried
// again (PBS: W, substate 37, 30 minutes).
func (r *jobRunner) stageIn() *Result {
	if r.job.Stagein == "" {
		return nil
	}
	specs, err := model.ParseStageList(r.job.Stagein)
	if err != nil {
		return &Result{Kind: model.JobEventStageinFailed, Exit: model.ExitFail1, Comment: fmt.Sprintf("bad stagein: %v", err)}
	}
	items := make([]TransferItem, len(specs))
	for i, s := range specs {
		items[i] = TransferItem{Op: OpIn, Local: s.Local, Host: s.Host, Remote: s.Remote}
	}
	results, err := r.transfer(items, nil)
	if err != nil {
		return &Result{Kind: model.JobEventStageinFailed, Exit: model.ExitFail1, Comment: err.Error()}
	}
	var bad []string
	for i, res := range results {
		r.stagedIn = append(r.stagedIn, res.Files...)
		if res.Err != "" {
			bad = append(bad, fmt.Sprintf("Unable to copy file %s from %s:%s: %s", specs[i].Local, specs[i].Host, specs[i].Remote, res.Err))
		}
	}
	if len(bad) == 0 {
		r.logger.Printf("job %s: staged in %d file(s)", r.job.ID, len(r.stagedIn))
		return nil
	}
	r.removeStagedIn()
	msg := strings.Join(bad, "; ")
	r.logger.Printf("job %s: stage-in failed: %s", r.job.ID, msg)
	return &Result{Kind: model.JobEventStageinFailed, Exit: model.ExitFail1, Comment: msg}
}

// stageOut copies the job's stageout list and returns a comment on
// failures ("" when every copy worked). A file that could not be copied
// stays where the job left it.
func (r *jobRunner) stageOut() string {
	if r.job.Stageout == "" {
		return ""
	}
	specs, err := model.ParseStageList(r.job.Stageout)
	if err != nil {
		return fmt.Sprintf("bad stageout: %v", err)
	}
	items := make([]TransferItem, len(specs))
	for i, s := range specs {
		items[i] = TransferItem{Op: OpOut, Local: s.Local, Host: s.Host, Remote: s.Remote}
	}
	results, err := r.transfer(items, nil)
	if err != nil {
		return "Stage-out failed: " + err.Error()
	}
	var bad []string
	for _, res := range results {
		if res.Err != "" {
			bad = append(bad, res.Err)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	msg := "Stage-out failed: " + strings.Join(bad, "; ")
	r.logger.Printf("job %s: %s", r.job.ID, msg)
	return msg
}

// removeStagedIn removes the files stage-in created.
func (r *jobRunner) removeStagedIn() {
	if len(r.stagedIn) == 0 {
		return
	}
	items := make([]TransferItem, len(r.stagedIn))
	for i, p := range r.stagedIn {
		items[i] = TransferItem{Op: OpRemove, Local: p}
	}
	r.stagedIn = nil
	results, err := r.transfer(items, nil)
	if err != nil {
		r.logger.Printf("job %s: remove staged-in files: %v", r.job.ID, err)
		return
	}
	for i, res := range results {
		if res.Err != "" {
			r.logger.Printf("job %s: remove staged-in %s: %s", r.job.ID, items[i].Local, res.Err)
		}
	}
}
