package mom

import (
	"log"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/server/api"
)

// TestAgentSaysWhenJobsAreNotContained: the start line names the fallback.
func TestAgentSaysWhenJobsAreNotContained(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Server, cfg.Host, cfg.Spool = "127.0.0.1:1", "testhost", t.TempDir()
	cfg.TLS = testAgentFiles()
	cfg.ShepherdCommand = shepherdCommand
	cfg.HelperCommand = shepherdCommand
	cfg.Cgroups = CgroupConfig{Mode: cgroupOff}
	var buf strings.Builder
	a, err := New(cfg, api.NewTCPClient(cfg.Server, testAgentCerts(t)), log.New(&buf, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	a.setupCgroups()
	want := "cgroups unavailable: disabled by [cgroups] mode = \"off\"; jobs are contained by process group only\n"
	if buf.String() != want || a.cgroups != nil {
		t.Errorf("log %q, layout %v; want %q", buf.String(), a.cgroups, want)
	}
}
