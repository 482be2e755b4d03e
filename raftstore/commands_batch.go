package raftstore

import "github.com/strata-hpc/strata/model"

// Batched job operations: a qhold, qrls or qdel of many ids
// (qrls $(qselect ...))
// commits as one entry instead of one per id, so 1,000 ids cost one Raft
// round trip and one fsync. Each element is the existing per-job command,
// applied one after another with the same rules and the same per-job
// result as if it had its own entry; a refused job changes nothing and does
// not stop the others (the per-job handlers check before they write).

// LevelBatchOps is the command level of HoldJobs, ReleaseJobs and
// DeleteJobs: the server proposes them only when every voter supports it,
// and otherwise proposes one HoldJob, ReleaseJob or DeleteJob per id.
const LevelBatchOps = 6

// MaxBatchJobs bounds the jobs of one batched entry, so that a single
// entry stays small next to the log's other entries however it was
// proposed.
const MaxBatchJobs = 1000

// HoldJobs is many HoldJob commands in one entry.
type HoldJobs struct {
	Jobs []HoldJob `json:"jobs"`
}

// ReleaseJobs is many ReleaseJob commands in one entry.
type ReleaseJobs struct {
	Jobs []ReleaseJob `json:"jobs"`
}

// DeleteJobs is many DeleteJob commands in one entry.
type DeleteJobs struct {
	Jobs []DeleteJob `json:"jobs"`
}

func (HoldJobs) Type() MessageType    { return HoldJobsType }
func (ReleaseJobs) Type() MessageType { return ReleaseJobsType }
func (DeleteJobs) Type() MessageType  { return DeleteJobsType }

// BatchResults is the result of a batched entry: one error (nil when the
// job changed) per element, in order.
type BatchResults []error

func errTooManyJobs(n int) error {
	return model.Errorf(model.PBSEInvalidRequest, " (%d jobs in one entry, at most %d)", n, MaxBatchJobs)
}

func (w *writer) holdJobs(c *HoldJobs) any { return eachJob(c.Jobs, w.holdJob) }

func (w *writer) releaseJobs(c *ReleaseJobs) any { return eachJob(c.Jobs, w.releaseJob) }

func (w *writer) deleteJobs(c *DeleteJobs) any { return eachJob(c.Jobs, w.deleteJob) }

// eachJob applies the per-job commands of a batched entry in order and
// collects their results.
func eachJob[C any](jobs []C, apply func(*C) any) any {
	if len(jobs) > MaxBatchJobs {
		return errTooManyJobs(len(jobs))
	}
	out := make(BatchResults, len(jobs))
	for i := range jobs {
		out[i] = asError(apply(&jobs[i]))
	}
	return out
}

// asError turns a per-job handler's result into its error, nil on success.
func asError(res any) error {
	if err, ok := res.(error); ok {
		return err
	}
	return nil
}
