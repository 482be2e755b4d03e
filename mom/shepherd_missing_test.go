package mom

import (
	"log"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/mom/shepherd"
	"github.com/strata-hpc/strata/server/api"
)

// TestAgentRefusesToStartWithoutShepherd: an agent whose strata-shepherd
// is missing says so at start, naming the path and how to install it,
// instead of failing every job it is given.
func TestAgentRefusesToStartWithoutShepherd(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Server, cfg.Host, cfg.Spool = "127.0.0.1:1", "testhost", t.TempDir()
	cfg.TLS = testAgentFiles()
	missing := filepath.Join(t.TempDir(), ShepherdExecutable)
	cfg.ShepherdCommand = []string{missing}
	_, err := New(cfg, api.NewTCPClient(cfg.Server, testAgentCerts(t)), log.New(&strings.Builder{}, "", 0))
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "make install") {
		t.Fatalf("New with a missing shepherd: %v", err)
	}
	// The default is the executable next to the agent's own.
	if def := DefaultConfig().ShepherdCommand; len(def) != 1 || filepath.Base(def[0]) != ShepherdExecutable {
		t.Errorf("default shepherd command %q", def)
	}
}

// TestShepherdWordsMatchTheAPI: the shepherd package spells the hook
// fail_action requests itself (importing server/api would link net/http
// into every shepherd); they must be the API's.
func TestShepherdWordsMatchTheAPI(t *testing.T) {
	if shepherd.HookOffline != api.HookOffline || shepherd.HookRestartCycle != api.HookRestartCycle {
		t.Errorf("hook actions %q %q, the API's %q %q", shepherd.HookOffline, shepherd.HookRestartCycle, api.HookOffline, api.HookRestartCycle)
	}
}
