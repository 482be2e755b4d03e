package server_test

import (
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// TestStagingAttributes: stagein/stageout are stored normalized at
// submission and replaced by qalter; malformed lists and hosts that are
// not plain names (an ssh option, user@host) are refused in submissions,
// in qalter and in -o/-e host parts.
func TestStagingAttributes(t *testing.T) {
	cl := newCluster(t, "")
	id := cl.mustSubmit(func(r *api.SubmitRequest) {
		r.Hold = "u"
		r.Stagein = " in@store:/d/in , cfg@store:c"
		r.Stageout = "*.out@store:/r/"
	})
	if j := cl.job(id); j.Stagein() != "in@store:/d/in,cfg@store:c" || j.Stageout() != "*.out@store:/r/" {
		t.Errorf("stored %q %q", j.Stagein(), j.Stageout())
	}
	s := func(v string) *string { return &v }
	if err := cl.c.Alter(cl.ctx, id, &api.AlterRequest{Stageout: s("res@store2:/r2")}); err != nil {
		t.Fatalf("qalter -W stageout: %v", err)
	}
	if j := cl.job(id); j.Stageout() != "res@store2:/r2" || j.Stagein() != "in@store:/d/in,cfg@store:c" {
		t.Errorf("altered %q %q", j.Stagein(), j.Stageout())
	}
	for name, mut := range map[string]func(*api.SubmitRequest){
		"stagein without host": func(r *api.SubmitRequest) { r.Stagein = "in" },
		"stagein user@host":    func(r *api.SubmitRequest) { r.Stagein = "in@bob@store:/x" },
		"stageout option host": func(r *api.SubmitRequest) { r.Stageout = "o@-oProxyCommand=x:/y" },
		"output option host":   func(r *api.SubmitRequest) { r.Output = "-oProxyCommand=x:/y" },
		"error user@host":      func(r *api.SubmitRequest) { r.Error = "bob@h:/e" },
	} {
		if _, err := cl.submit(mut); pbsCode(err) != model.PBSEBadAttrVal {
			t.Errorf("%s: %v, want Illegal attribute or resource value", name, err)
		}
	}
	for name, bad := range map[string]*api.AlterRequest{
		"stagein option host": {Stagein: s("i@-oX=y:/z")},
		"output user@host":    {Output: s("bob@h:/o")},
	} {
		if err := cl.c.Alter(cl.ctx, id, bad); pbsCode(err) != model.PBSEBadAttrVal {
			t.Errorf("qalter %s: %v", name, err)
		}
	}
}
