package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoDaemonOrNSSCode: what this binary links, as make builds it
// (CGO_ENABLED=0). os/user without cgo reads only /etc/passwd and
// /etc/group, so a command that looked users up would miss LDAP and SSSD
// users: identity is the server's business (SO_PEERCRED, MUNGE). The
// daemons' libraries would bring back the start-up cost this binary
// exists to avoid.
func TestLinksNoDaemonOrNSSCode(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{"os/user", "runtime/cgo", "github.com/hashicorp/raft", "go.etcd.io/bbolt",
		"github.com/prometheus/", "golang.org/x/crypto/ssh", "github.com/hashicorp/go-memdb", "github.com/urfave/cli/"}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, strings.TrimSuffix(f, "/")+"/") {
				t.Errorf("strata-pbs links %s", dep)
			}
		}
	}
}
