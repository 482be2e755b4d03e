package server

import (
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/scheduler"
)

// gatePreemption turns preemption off for a cycle while some voter is
// below raftstore.LevelPreempt: such a server would apply the plan's runs
// without its preemptions (a rolling upgrade, docs/ha.md).
func (s *Server) gatePreemption(in *scheduler.Snapshot) {
	if l, _ := s.clusterLevel(); l < raftstore.LevelPreempt && in.Config.Preempt != nil {
		in.Config.Preempt = nil
	}
}
