package server

import (
	"strings"
	"testing"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

func testServerConfig() *model.ServerConfig {
	c := DefaultConfig()
	c.AllowRootJobs = false
	sc := c.ServerConfig()
	return &sc
}

var alice = &Identity{User: "alice", UID: 1000, GID: 1000, Group: "users", Host: "login1"}

func TestResolveResources(t *testing.T) {
	cases := []struct {
		name    string
		in      map[string]string
		select_ string
		sched   string
		place   string
		ncpus   string
		mem     string
		nodect  string
		err     string
		code    int
	}{
		{name: "bare qsub", in: nil, select_: "1:ncpus=1", sched: "1:ncpus=1", place: "pack", ncpus: "1", nodect: "1"},
		{name: "old style job-wide", in: map[string]string{"ncpus": "4", "mem": "8GB"}, select_: "1:ncpus=4:mem=8gb", sched: "1:ncpus=4:mem=8gb", place: "pack", ncpus: "4", mem: "8gb", nodect: "1"},
		{name: "select gets chunk default", in: map[string]string{"select": "2:mem=1gb"}, select_: "2:mem=1gb", sched: "2:mem=1gb:ncpus=1", place: "free", ncpus: "2", mem: "2gb", nodect: "2"},
		{name: "select and place", in: map[string]string{"select": "2:ncpus=8:mem=16gb", "place": "scatter:excl"}, select_: "2:ncpus=8:mem=16gb", sched: "2:ncpus=8:mem=16gb", place: "scatter:excl", ncpus: "16", mem: "32gb", nodect: "2"},
		{name: "walltime normalized", in: map[string]string{"walltime": "3600"}, select_: "1:ncpus=1", sched: "1:ncpus=1", place: "pack", ncpus: "1", nodect: "1"},
		{name: "unknown job-wide", in: map[string]string{"foo": "1"}, err: "Unknown resource Resource_List.foo", code: model.PBSEUnknownResource},
		{name: "unknown in chunk", in: map[string]string{"select": "1:foo=1"}, err: "Unknown resource: foo", code: model.PBSEUnknownResource},
		{name: "bad walltime", in: map[string]string{"walltime": "1:xx"}, err: "Illegal attribute or resource value Resource_List.walltime", code: model.PBSEBadAttrVal},
		{name: "bad size", in: map[string]string{"mem": "1.5gb"}, err: "Illegal attribute or resource value Resource_List.mem", code: model.PBSEBadAttrVal},
		{name: "place without select", in: map[string]string{"place": "pack"}, err: `Cannot have "place" without "select"`},
		{name: "mixing styles", in: map[string]string{"select": "1:ncpus=1", "ncpus": "2"}, err: `"-lresource=" cannot be used with "select" or "place", resource is: ncpus`},
		{name: "bad place", in: map[string]string{"select": "1:ncpus=1", "place": "everywhere"}, err: "Illegal attribute or resource value Resource_List.place"},
		{name: "duplicate in chunk", in: map[string]string{"select": "1:ncpus=1:ncpus=2"}, err: "duplicated resource within a section of a select specification, resource is: ncpus"},
		{name: "malformed select", in: map[string]string{"select": "2:ncpus"}, err: "Illegal attribute or resource value Resource_List.select"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			list, sel, place, err := resolveResources(tc.in, testServerConfig())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if pe, ok := model.AsPBSError(err); tc.code != 0 && (!ok || pe.Code != tc.code) {
					t.Fatalf("code = %+v, want %d", pe, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if list["select"] != tc.select_ || sel.String() != tc.sched || place.String() != tc.place {
				t.Errorf("select %q sched %q place %q", list["select"], sel.String(), place.String())
			}
			if list["ncpus"] != tc.ncpus || list["mem"] != tc.mem || list["nodect"] != tc.nodect {
				t.Errorf("ncpus %q mem %q nodect %q", list["ncpus"], list["mem"], list["nodect"])
			}
		})
	}
}

func TestBuildJobTakesOwnerFromIdentity(t *testing.T) {
	// The host part of Job_Owner and Submit_Host are the identity's, whatever
	// the request says (issue 9 item 6).
	req := &api.SubmitRequest{Script: "true", Workdir: "/home/alice", SubmitHost: "forged.example"}
	j, err := buildJob(req, alice, testServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	if j.User != "alice" || j.Owner != "alice@"+alice.Host || j.SubmitHost != alice.Host || j.UID != 1000 || j.Queue != "workq" || j.Name != "STDIN" {
		t.Fatalf("job identity: %+v", j)
	}
}

func TestBuildJobRefusesControlCharacters(t *testing.T) {
	for _, req := range []*api.SubmitRequest{
		{Script: "true", Account: "a\nb"},
		{Script: "true", Project: "p\r"},
		{Script: "true", MailUsers: "x\x00y"},
		{Script: "true", Output: "/tmp/o\n"},
		{Script: "true", Resources: map[string]string{"walltime": "1:00\n"}},
		{Script: "true", Account: strings.Repeat("a", maxAttrLen+1)},
	} {
		_, err := buildJob(req, alice, testServerConfig())
		if pe, ok := model.AsPBSError(err); !ok || pe.Code != model.PBSEBadAttrVal {
			t.Errorf("%+v: %v, want Illegal attribute or resource value", req, err)
		}
	}
	if _, err := buildJob(&api.SubmitRequest{Script: "true", Account: "tab\tok"}, alice, testServerConfig()); err != nil {
		t.Errorf("tab refused: %v", err)
	}
}

func TestBuildJobRejections(t *testing.T) {
	root := &Identity{User: "root", UID: 0}
	if _, err := buildJob(&api.SubmitRequest{Script: "true"}, root, testServerConfig()); err == nil || !strings.Contains(err.Error(), "Unauthorized Request") {
		t.Errorf("root submission: %v", err)
	}
	if _, err := buildJob(&api.SubmitRequest{Script: "true", Queue: "nope"}, alice, testServerConfig()); err == nil || err.Error() != "Unknown queue" {
		t.Errorf("unknown queue: %v", err)
	}
	if _, err := buildJob(&api.SubmitRequest{Script: "true", Name: "bad name"}, alice, testServerConfig()); err == nil {
		t.Errorf("bad name accepted")
	}
	if _, err := buildJob(&api.SubmitRequest{}, alice, testServerConfig()); err == nil {
		t.Errorf("job without script accepted")
	}
}

func TestConfigValidationNamesTheKey(t *testing.T) {
	c := DefaultConfig()
	c.TLS = TLSConfig{CAFile: "/ca.pem", CertFile: "/s.pem", KeyFile: "/k.pem"}
	c.DefaultQueue = "nope"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "default_queue") {
		t.Fatalf("err = %v", err)
	}
	c = DefaultConfig()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "tls.ca_file") {
		t.Fatalf("missing tls: %v", err)
	}
}

// TestBuildJobInteractive: qsub -I's listening address and cookie make an
// interactive job (not rerunnable, no script); a malformed address, a
// cookie that is not 64 hex digits, an address carrying other characters
// or an interactive array are refused.
func TestBuildJobInteractive(t *testing.T) {
	cookie := strings.Repeat("ab", api.InteractiveCookieLen/2)
	j, err := buildJob(&api.SubmitRequest{Interactive: "login1:40123", InteractiveCookie: cookie, Script: "#PBS -N x\n"}, alice, testServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	if !j.Interactive() || j.InteractiveAddr() != "login1:40123" || j.InteractiveCookie() != cookie || j.Rerun || j.Script != "" {
		t.Fatalf("interactive job: %+v", j)
	}
	for _, req := range []*api.SubmitRequest{
		{Interactive: "login1", InteractiveCookie: cookie},
		{Interactive: "login1:0", InteractiveCookie: cookie},
		{Interactive: "login1:70000", InteractiveCookie: cookie},
		{Interactive: "login1:40123", InteractiveCookie: "short"},
		{Interactive: "login1:40123", InteractiveCookie: strings.Repeat("zz", api.InteractiveCookieLen/2)},
		{Interactive: "log in;rm:40123", InteractiveCookie: cookie},
		{Interactive: "login1:40123", InteractiveCookie: cookie, ArrayIndices: "1-3"},
	} {
		if _, err := buildJob(req, alice, testServerConfig()); err == nil {
			t.Errorf("%+v accepted", req)
		}
	}
}
