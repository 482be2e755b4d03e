package server

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestCheckSoftWalltime: OpenPBS's rules on soft_walltime, for each
// caller and each way a request can break them.
func TestCheckSoftWalltime(t *testing.T) {
	cfg := &model.ServerConfig{Managers: []string{"boss@*"}, Operators: []string{"op@*"}}
	user := &Identity{User: "alice", UID: 1000, Host: "login1"}
	oper := &Identity{User: "op", UID: 1001, Host: "login1"}
	mgr := &Identity{User: "boss", UID: 1002, Host: "login1"}
	root := &Identity{User: "root", UID: 0, Host: "login1"}
	for _, tc := range []struct {
		name      string
		id        *Identity
		requested map[string]string
		list      map[string]string
		code      int
	}{
		{"user asks for it", user, map[string]string{"soft_walltime": "10"}, map[string]string{"soft_walltime": "00:00:10"}, model.PBSEAttrRO},
		{"operator asks for it", oper, map[string]string{"soft_walltime": "10"}, map[string]string{"soft_walltime": "00:00:10"}, model.PBSEAttrRO},
		{"manager", mgr, map[string]string{"soft_walltime": "10"}, map[string]string{"soft_walltime": "00:00:10"}, 0},
		{"root", root, map[string]string{"soft_walltime": "10"}, map[string]string{"soft_walltime": "00:00:10"}, 0},
		{"user gets it from resources_default", user, map[string]string{"walltime": "60"}, map[string]string{"soft_walltime": "00:00:10", "walltime": "00:01:00"}, 0},
		{"above walltime", mgr, map[string]string{"soft_walltime": "240"}, map[string]string{"soft_walltime": "00:04:00", "walltime": "00:02:00"}, model.PBSEBadAttrVal},
		{"equal to walltime", mgr, map[string]string{"soft_walltime": "120"}, map[string]string{"soft_walltime": "00:02:00", "walltime": "00:02:00"}, 0},
		{"walltime lowered below it (qalter)", user, map[string]string{"walltime": "60"}, map[string]string{"soft_walltime": "00:02:00", "walltime": "00:01:00"}, model.PBSEBadAttrVal},
		{"zero", mgr, map[string]string{"soft_walltime": "0"}, map[string]string{"soft_walltime": "00:00:00"}, model.PBSEBadAttrVal},
	} {
		err := checkSoftWalltime(tc.requested, tc.list, tc.id, cfg)
		code := 0
		if pe, ok := err.(*model.PBSError); ok {
			code = pe.Code
		} else if err != nil {
			code = -1
		}
		if code != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
	}
}
