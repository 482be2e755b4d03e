package raftstore

import "github.com/strata-hpc/strata/model"

// Manage applies one qmgr operation (create, delete, set, unset, import) to
// the replicated configuration. The server checks authorization before
// proposing it; the FSM validates the operation itself, so every server
// reaches the same result and a refused operation changes nothing.
type Manage struct {
	Request model.ManagerRequest `json:"request"`
	Now     int64                `json:"now"`
	// Requestor is user@host of the qmgr request, for the event log.
	Requestor string `json:"requestor,omitempty"`
}

func (Manage) Type() MessageType { return ManageType }
