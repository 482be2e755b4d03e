package api

import "github.com/strata-hpc/strata/raftstore/manager"

// DescribeResponse answers GET /v1/manage (qmgr list, print, export).
type DescribeResponse struct {
	Server  string           `json:"server"`
	Objects []manager.Object `json:"objects"`
}
