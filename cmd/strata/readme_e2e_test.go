//go:build e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestReadmeTourRunsVerbatim runs the README's 5-minute tour as a new user
// would paste it into a shell on a fresh clone: the same lines, in the same
// order, from the repository's root. Only the cluster directory differs
// (/tmp/c becomes a private directory, so parallel runs do not meet). The
// shell stops at the first failing line.
func TestReadmeTourRunsVerbatim(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	tour := regexp.MustCompile("(?s)## A 5-minute tour.*?```sh\n(.*?)```").FindSubmatch(readme)
	if tour == nil {
		t.Fatal("README has no tour block")
	}
	dir := filepath.Join(t.TempDir(), "c")
	clusterDirs.Lock()
	clusterDirs.dirs = append(clusterDirs.dirs, dir+"/")
	clusterDirs.Unlock()
	script := strings.ReplaceAll(string(tour[1]), "/tmp/c", dir)
	t.Cleanup(func() {
		exec.Command(filepath.Join(root, "bin", "strata"), "cluster", "stop", "--dir", dir).Run()
	})

	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = root
	// A fresh HOME, but Go's module and build caches stay where they are:
	// with HOME's default caches the tour's make rebuilt every package and
	// downloaded every module, minutes on a loaded machine, which tests
	// nothing the README says.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	for _, v := range []string{"GOMODCACHE", "GOCACHE", "GOPATH"} {
		if out, err := exec.Command("go", "env", v).Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			cmd.Env = append(cmd.Env, v+"="+strings.TrimSpace(string(out)))
		}
	}
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("the tour did not finish in 4 minutes:\n%s", out)
	}
	if err != nil {
		t.Fatalf("the tour failed (%v):\n%s", err, out)
	}
	for _, want := range []string{
		"state = free",     // pbsnodes -a
		"Job_Name = hello", // qstat -x -f
		"UNCONFIRMED",      // pbs_rsub
		"average wait",     // strata simulate
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the tour's output lacks %q:\n%s", want, out)
		}
	}
}
