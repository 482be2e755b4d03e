package mom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Stage-in and stage-out (qsub -W stagein/stageout), on the mother
// superior: stage-in before the job starts (after the execjob_begin
// hooks); stage-out after it ends, before output delivery; staged-in
// files are removed at the very end, as PBS removes them. The copies are
// made by the transfer helper as the job's owner (stage_helper.go).

// transfer runs the helper with the given items; files are the spooled
// outputs the deliver items name by index.
func (r *jobRunner) transfer(items []transferItem, files []*os.File) ([]transferResult, error) {
	if len(r.params.SelfCommand) == 0 {
		return nil, fmt.Errorf("no helper command to copy files with")
	}
	req := transferRequest{
		Config: r.transferConfig(),
		User:   sshUser{UID: r.id.UID, Name: r.id.Name, Home: r.id.Home},
		Umask:  r.job.JobUmask(),
		Items:  items,
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode transfer request: %w", err)
	}
	argv := append(append([]string(nil), r.params.SelfCommand...), shepherdTransfer)
	var stdout, stderr bytes.Buffer
	cmd := &exec.Cmd{
		Path:        argv[0],
		Args:        argv,
		Dir:         "/",
		Stdin:       bytes.NewReader(body),
		Stdout:      &stdout,
		Stderr:      &stderr,
		ExtraFiles:  files,
		SysProcAttr: &syscall.SysProcAttr{Credential: r.credential()},
	}
	if err := withUmask(r.job.JobUmask(), cmd.Start); err != nil {
		return nil, fmt.Errorf("transfer helper: %w", err)
	}
	werr := cmd.Wait()
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		r.logger.Printf("transfer helper: %s", msg)
	}
	var results []transferResult
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil || len(results) != len(items) {
		if werr != nil {
			return nil, fmt.Errorf("transfer helper: %w", werr)
		}
		return nil, fmt.Errorf("transfer helper: bad answer")
	}
	return results, nil
}

// transferConfig is the launch record's, with this host's names filled
// in when the record predates them.
func (r *jobRunner) transferConfig() TransferConfig {
	c := r.params.Transfer
	if len(c.LocalNames) == 0 {
		c.LocalNames = localNames(r.params.Host)
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
		return &Result{Kind: api.EventStageinFailed, Exit: model.ExitFail1, Comment: fmt.Sprintf("bad stagein: %v", err)}
	}
	items := make([]transferItem, len(specs))
	for i, s := range specs {
		items[i] = transferItem{Op: opIn, Local: s.Local, Host: s.Host, Remote: s.Remote}
	}
	results, err := r.transfer(items, nil)
	if err != nil {
		return &Result{Kind: api.EventStageinFailed, Exit: model.ExitFail1, Comment: err.Error()}
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
	return &Result{Kind: api.EventStageinFailed, Exit: model.ExitFail1, Comment: msg}
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
	items := make([]transferItem, len(specs))
	for i, s := range specs {
		items[i] = transferItem{Op: opOut, Local: s.Local, Host: s.Host, Remote: s.Remote}
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
	items := make([]transferItem, len(r.stagedIn))
	for i, p := range r.stagedIn {
		items[i] = transferItem{Op: opRemove, Local: p}
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
