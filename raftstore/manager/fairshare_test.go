package manager

import (
	"testing"

	"github.com/strata-hpc/strata/model"
)

// TestFairshareAttributes: the fairshare attributes of the sched object as
// qmgr list shows them, or the error that refuses a value.
func TestFairshareAttributes(t *testing.T) {
	sch := func(attrs ...Attr) Request { return set(Sched, "", attrs...) }
	tree := "grpA 10 root 60,grpB 20 root 40,alice 11 grpA 1,bob 21 grpB 1"
	cases := []struct {
		name string
		reqs []Request
		item string
		want string
		code int
	}{
		{"fair_share", []Request{sch(a("fair_share", "=", "true"))}, "fair_share", "True", 0},
		{"fair_share unset", []Request{sch(a("fair_share", "=", "true")), unset(Sched, "", "fair_share")}, "fair_share", "", 0},
		{"entity egroup", []Request{sch(a("fairshare_entity", "=", "egroup"))}, "fairshare_entity", "egroup", 0},
		{"entity Account_Name", []Request{sch(a("fairshare_entity", "=", "Account_Name"))}, "fairshare_entity", "Account_Name", 0},
		{"entity queue", []Request{sch(a("fairshare_entity", "=", "queue"))}, "fairshare_entity", "queue", 0},
		{"entity unknown", []Request{sch(a("fairshare_entity", "=", "shoe_size"))}, "", "", model.PBSEBadAttrVal},
		{"usage_res cput", []Request{sch(a("fairshare_usage_res", "=", "cput"))}, "fairshare_usage_res", "cput", 0},
		{"usage_res ncpus", []Request{sch(a("fairshare_usage_res", "=", "ncpus"))}, "fairshare_usage_res", "ncpus", 0},
		{"usage_res ncpus*walltime", []Request{sch(a("fairshare_usage_res", "=", "ncpus*walltime"))}, "fairshare_usage_res", "ncpus*walltime", 0},
		{"usage_res mem", []Request{sch(a("fairshare_usage_res", "=", "mem"))}, "fairshare_usage_res", "mem", 0},
		{"usage_res a string resource", []Request{sch(a("fairshare_usage_res", "=", "arch"))}, "", "", model.PBSEBadAttrVal},
		{"usage_res unknown", []Request{sch(a("fairshare_usage_res", "=", "nope"))}, "", "", model.PBSEBadAttrVal},
		{"decay_time", []Request{sch(a("fairshare_decay_time", "=", "01:00:00"))}, "fairshare_decay_time", "3600", 0},
		{"decay_time zero", []Request{sch(a("fairshare_decay_time", "=", "0"))}, "", "", model.PBSEBadAttrVal},
		{"decay_factor", []Request{sch(a("fairshare_decay_factor", "=", "0.75"))}, "fairshare_decay_factor", "0.75", 0},
		{"decay_factor 1", []Request{sch(a("fairshare_decay_factor", "=", "1"))}, "", "", model.PBSEBadAttrVal},
		{"decay_factor NaN", []Request{sch(a("fairshare_decay_factor", "=", "NaN"))}, "", "", model.PBSEBadAttrVal},
		{"unknown_shares", []Request{sch(a("unknown_shares", "=", "0"))}, "unknown_shares", "0", 0},
		{"unknown_shares negative", []Request{sch(a("unknown_shares", "=", "-1"))}, "", "", model.PBSEBadAttrVal},
		{"enforce_no_shares false", []Request{sch(a("fairshare_enforce_no_shares", "=", "false"))}, "fairshare_enforce_no_shares", "False", 0},
		{"tree", []Request{sch(a("resource_group", "=", tree))}, "resource_group", tree, 0},
		{"tree spaces normalised", []Request{sch(a("resource_group", "=", "grpA   10 root\t60"))}, "resource_group", "grpA 10 root 60", 0},
		{"tree +=", []Request{sch(a("resource_group", "=", "grpA 10 root 60")), sch(a("resource_group", "+=", "alice 11 grpA 5"))}, "resource_group", "grpA 10 root 60,alice 11 grpA 5", 0},
		{"tree -= a leaf", []Request{sch(a("resource_group", "=", tree)), sch(a("resource_group", "-=", "bob  21 grpB 1"))}, "resource_group", "grpA 10 root 60,grpB 20 root 40,alice 11 grpA 1", 0},
		{"tree -= a parent with children", []Request{sch(a("resource_group", "=", tree)), sch(a("resource_group", "-=", "grpB 20 root 40"))}, "", "", model.PBSEBadAttrVal},
		{"tree parent undefined", []Request{sch(a("resource_group", "=", "alice 11 grpA 5"))}, "", "", model.PBSEBadAttrVal},
		{"tree duplicate name", []Request{sch(a("resource_group", "=", "a 1 root 5,a 2 root 5"))}, "", "", model.PBSEBadAttrVal},
		{"tree duplicate id", []Request{sch(a("resource_group", "=", "a 1 root 5,b 1 root 5"))}, "", "", model.PBSEBadAttrVal},
		{"tree defines root", []Request{sch(a("resource_group", "=", "root 1 root 5"))}, "", "", model.PBSEBadAttrVal},
		{"tree three fields", []Request{sch(a("resource_group", "=", "a 1 root"))}, "", "", model.PBSEBadAttrVal},
		{"tree negative shares", []Request{sch(a("resource_group", "=", "a 1 root -5"))}, "", "", model.PBSEBadAttrVal},
		{"tree unset", []Request{sch(a("resource_group", "=", tree)), unset(Sched, "", "resource_group")}, "resource_group", "", 0},
	}
	for _, tc := range cases {
		got, err := describeItem(t, tc.reqs, tc.item)
		if tc.code != 0 {
			pe, ok := err.(*model.PBSError)
			if !ok || pe.Code != tc.code {
				t.Errorf("%s: error %v, want code %d", tc.name, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: %s = %q, want %q", tc.name, tc.item, got, tc.want)
		}
	}
}
