package raftstore

import "github.com/strata-hpc/strata/model"

// The submission-token lookup.
//
// A retried submission (same token) must get the id of the job the first
// attempt created. This used to be a go-memdb index over every job's
// token: about 450 bytes per job (radix node and leaf, each with its own
// watch channel), a fifth of a queued job's memory, for a lookup only the
// FSM's submit makes and nobody watches. tokenIndex is a plain map from
// token to job id instead, derived from the jobs' Token fields (which the
// snapshot and the log carry as before), so it is rebuilt on restore and
// is no new replicated state.
//
// The map is not versioned like the memdb tables, so it must never give
// an answer the transaction's state would not:
//   - lookups are verified against the transaction: the id must name a
//     job whose Token is the token. An entry left by a transaction that
//     was aborted (a panicking entry) or by a job since deleted answers
//     nothing;
//   - entries are only removed after the transaction that deleted the job
//     commits (pending), so an aborted delete cannot lose the entry of a
//     job that stays.
//
// Only the FSM's one writer uses it (under Raft's apply, one batch at a
// time): no lock.
type tokenIndex struct {
	ids     map[string]string
	pending []string // tokens of jobs deleted in the open transaction
}

func newTokenIndex() *tokenIndex { return &tokenIndex{ids: map[string]string{}} }

// add records j's token (a job being stored with one).
func (t *tokenIndex) add(j *model.Job) {
	if t != nil && j.Token != "" {
		t.ids[j.Token] = j.ID
	}
}

// dropLater forgets j's token once the transaction commits.
func (t *tokenIndex) dropLater(j *model.Job) {
	if t != nil && j.Token != "" {
		t.pending = append(t.pending, j.Token)
	}
}

// commit applies the removals of a committed transaction. A token whose
// entry names a job created since (same token submitted again after the
// first job was deleted, in the same transaction) keeps it: lookups
// verify, and the map keeps any live job's entry.
func (t *tokenIndex) commit(live func(token, id string) bool) {
	for _, tok := range t.pending {
		if id, ok := t.ids[tok]; ok && !live(tok, id) {
			delete(t.ids, tok)
		}
	}
	t.pending = t.pending[:0]
}

// abort drops the removals of an aborted transaction.
func (t *tokenIndex) abort() { t.pending = t.pending[:0] }

// jobByToken returns the job the transaction holds for a token, or nil.
func (w *writer) jobByToken(token string) *model.Job {
	if w.tokens == nil {
		return nil
	}
	id, ok := w.tokens.ids[token]
	if !ok {
		return nil
	}
	if j := w.jobRow(id); j != nil && j.Token == token {
		return j
	}
	return nil
}
