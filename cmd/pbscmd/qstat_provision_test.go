package pbscmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/server/api"
)

func TestQstatBfProvisionAttributes(t *testing.T) {
	info := apiInfo()
	info.Provision = &api.ServerProvision{
		Enabled: true, MaxConcurrent: 5, Running: 2, Waiting: 4, Suggested: 9,
		PerAOE: []api.ProvisionAOE{
			{AOE: "app1", Successes: 3, Failures: 1, EstimateSecs: 12, MeanWaitSecs: 4, Learned: true},
			{AOE: "rhel9", EstimateSecs: 600},
		},
	}
	srv := &fakeServer{info: info}
	tio, code := runQstat(t, srv, "-Bf")
	want := "    provision_enable = True\n" +
		"    max_concurrent_provision = 5\n" +
		"    provision_running = 2\n" +
		"    provision_waiting = 4\n" +
		"    provision_estimate.app1 = 00:00:12\n" +
		"    provision_estimate.rhel9 = 00:10:00\n" +
		"    provision_successes.app1 = 3\n" +
		"    provision_successes.rhel9 = 0\n" +
		"    provision_failures.app1 = 1\n" +
		"    provision_failures.rhel9 = 0\n" +
		"    provision_mean_wait.app1 = 00:00:04\n" +
		"    provision_mean_wait.rhel9 = 00:00:00\n" +
		"    suggested_max_concurrent_provision = 9\n" +
		"    pbs_version = "
	if code != 0 || !strings.Contains(tio.stdout.String(), want) {
		t.Fatalf("-Bf:\n%s\nwant a block:\n%s", tio.stdout, want)
	}
	tio, _ = runQstat(t, srv, "-Bf", "-F", "json")
	var doc struct {
		Server map[string]map[string]any `json:"Server"`
	}
	if err := json.Unmarshal(tio.stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, tio.stdout)
	}
	s := doc.Server["pbssvr"]
	est, _ := s["provision_estimate"].(map[string]any)
	if s["max_concurrent_provision"] != float64(5) || s["provision_waiting"] != float64(4) || est["rhel9"] != "00:10:00" ||
		s["suggested_max_concurrent_provision"] != float64(9) || s["provision_enable"] != "True" {
		t.Fatalf("json: %s", tio.stdout)
	}
	// A server without provisioning keeps OpenPBS's attribute list.
	srv = &fakeServer{info: apiInfo()}
	if tio, _ = runQstat(t, srv, "-Bf"); strings.Contains(tio.stdout.String(), "provision") {
		t.Fatalf("provisioning attributes without provisioning:\n%s", tio.stdout)
	}
}
