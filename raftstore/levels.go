package raftstore

import (
	"strconv"
)

// Command levels make rolling upgrades safe, in the manner of Nomad: every
// MessageType carries the level of the release that introduced it, and a
// binary knows the types up to its own CommandLevel. A server never
// decodes an entry above its level: it refuses it deterministically, like
// any unknown entry (fsm.go), so an old follower keeps applying the rest of
// the log. The leader, for its part, emits a type only once every voter
// supports its level (server/levels.go): servers announce their level to
// the leader, which records it in replicated state (ServerInfo), so new
// command types are held back while an old server remains, and used as
// soon as it has been replaced.
//
// Level 1 is every type up to DeleteResv (the releases before levels).
// Level 2 adds ServerInfo; level 3 adds Fairshare and AlterResv; level 4
// adds the preemption decisions of ApplyPlan (Preempts, Resumes:
// apply_preempt.go), which an older server would ignore, so the leader's
// scheduler plans no preemption until every voter is at level 4
// (LevelPreempt). Level 5 adds what reservations decide inside the FSM
// from existing commands (degradation, resv-exclusive flags) and the new
// pbs_rsub forms (maintenance, qmove, --job, delete_idle_time,
// create_resv_from_job): LevelResv. Level 6 adds HoldJobs, ReleaseJobs and
// DeleteJobs (many qhold/qrls/qdel ids in one entry): LevelBatchOps.

// commandLevel is this binary's level. It is a variable only so that a
// build can stand for an earlier release (the rolling-upgrade test):
//
//	go build -ldflags "-X github.com/strata-hpc/strata/raftstore.commandLevel=1"
//
// Nothing assigns it at run time.
var commandLevel = "6"

// maxLevel is the highest level this source knows.
const maxLevel = 6

// CommandLevel is the highest command level this binary applies.
func CommandLevel() int {
	n, err := strconv.Atoi(commandLevel)
	if err != nil || n < 1 || n > maxLevel {
		return maxLevel
	}
	return n
}

// Level is the command level that introduced t.
func (t MessageType) Level() int {
	switch t {
	case ServerInfoType:
		return 2
	case FairshareType, AlterResvType:
		return 3
	case HoldJobsType, ReleaseJobsType, DeleteJobsType:
		return LevelBatchOps
	}
	return 1
}

// LevelResv is the command level of the reservation behaviour of
// apply_resv_degrade.go. It is decided by the FSM itself, not carried by a
// command type the leader could hold back, so the FSM gates it on the
// replicated server records (levelRecorded): while any recorded server is
// below it, no server degrades a reservation, the old ones because they
// cannot and the new ones because they see the old one's record. The
// change happens at the same log index everywhere: the ServerInfo entry
// that records the last server's new level.
const LevelResv = 5

// levelRecorded reports whether every server recorded in replicated state
// announced at least level. A lone server records none (it has no one to
// tell) and has no older server to agree with.
func (w *writer) levelRecorded(level int) bool {
	it, err := w.txn.Get(tableServers, "id")
	if err != nil {
		return false
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if raw.(*ServerRecord).Level < level {
			return false
		}
	}
	return true
}
