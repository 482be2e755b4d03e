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
// (LevelPreempt).

// commandLevel is this binary's level. It is a variable only so that a
// build can stand for an earlier release (the rolling-upgrade test):
//
//	go build -ldflags "-X github.com/strata-hpc/strata/raftstore.commandLevel=1"
//
// Nothing assigns it at run time.
var commandLevel = "4"

// maxLevel is the highest level this source knows.
const maxLevel = 4

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
	}
	return 1
}
