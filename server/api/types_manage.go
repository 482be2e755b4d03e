package api

import "github.com/strata-hpc/strata/model"

// DescribeResponse answers GET /v1/manage (qmgr list, print, export).
type DescribeResponse struct {
	Server  string               `json:"server"`
	Objects []model.ConfigObject `json:"objects"`
}
