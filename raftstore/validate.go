package raftstore

import "github.com/strata-hpc/strata/model"

// The FSM re-validates the numbers of a command that drive work inside
// apply, whatever the server checked before proposing it: a log entry is
// replayed on every server and after every restart, so an entry that made
// apply loop or allocate without bound would stop the cluster for good.
// Refusals here are deterministic (they depend on the command and the
// replicated configuration only).

// maxArraySize is the server's max_array_size, or the PBS default.
func maxArraySize(cfg *model.ServerConfig) int64 {
	if cfg.MaxArraySize > 0 {
		return cfg.MaxArraySize
	}
	return model.DefaultMaxArraySize
}

// checkSubmitBounds refuses a job whose array range is malformed or larger
// than max_array_size.
func checkSubmitBounds(j *model.Job, cfg *model.ServerConfig) error {
	if j == nil {
		return model.Errorf(model.PBSEInvalidRequest, ": no job in the request")
	}
	if j.Array == nil {
		return nil
	}
	if !j.Array.Valid() {
		return model.Errorf(model.PBSEBadAttrVal, " array_indices_submitted")
	}
	if j.Array.Size() > maxArraySize(cfg) {
		return model.Err(model.PBSEArrayTooLarge)
	}
	return nil
}
