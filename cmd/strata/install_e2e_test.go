//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/cmd/pbscmd"
	"github.com/strata-hpc/strata/mom"
	"github.com/strata-hpc/strata/server"
)

// repoRoot is the module root (the Makefile's directory).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Fatalf("no Makefile at %s: %v", root, err)
	}
	return root
}

// makeInstall runs `make install` (or another target) into dest, building
// into bin (a directory of the test's) so the source tree is not written.
func makeInstall(t *testing.T, target, dest, bin string) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed: skipping the installation test")
	}
	out, err := exec.Command("make", "-C", repoRoot(t), target, "DESTDIR="+dest, "BIN="+bin).CombinedOutput()
	if err != nil {
		t.Fatalf("make %s DESTDIR=%s: %v\n%s", target, dest, err, out)
	}
}

// TestMakeInstall installs into a DESTDIR and checks what a new admin
// gets: the binary and its links, a man page per command that man renders,
// completion, example configurations the daemons accept, and systemd
// units systemd accepts; then uninstall removes all of it.
func TestMakeInstall(t *testing.T) {
	dest, build := t.TempDir(), t.TempDir()
	makeInstall(t, "install", dest, build)
	usr := filepath.Join(dest, "usr/local")

	bin := filepath.Join(usr, "bin", "strata")
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("%s: not an executable (%v)", bin, err)
	}
	// The agent starts each job's shepherd from next to its own executable.
	if fi, err := os.Stat(filepath.Join(usr, "bin", mom.ShepherdExecutable)); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("%s: not installed next to strata (%v)", mom.ShepherdExecutable, err)
	}
	for _, m := range pbscmd.Manuals() {
		link := filepath.Join(usr, "bin", m.Name)
		if target, err := os.Readlink(link); err != nil || target != "strata" {
			t.Errorf("%s -> %q (%v), want a link to strata", link, target, err)
		}
		page := filepath.Join(usr, "share/man", fmt.Sprintf("man%d/%s.%d", m.Section, m.Name, m.Section))
		if _, err := os.Stat(page); err != nil {
			t.Errorf("man page of %s: %v", m.Name, err)
		}
		if target, err := os.Readlink(filepath.Join(usr, "share/bash-completion/completions", m.Name)); err != nil || target != "strata" {
			t.Errorf("completion of %s -> %q (%v)", m.Name, target, err)
		}
	}
	// The installed binary runs and is the one the links call.
	if out, err := exec.Command(filepath.Join(usr, "bin", "qstat"), "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "pbs_version = ") {
		t.Errorf("installed qstat --version: %v %q", err, out)
	}

	t.Run("man renders the pages", func(t *testing.T) {
		if _, err := exec.LookPath("man"); err != nil {
			t.Skip("man is not installed: the pages are not rendered")
		}
		for _, page := range []string{"man1/qsub.1", "man8/strata.8"} {
			cmd := exec.Command("man", "-l", filepath.Join(usr, "share/man", page))
			cmd.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100", "TERM=dumb")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("man -l %s: %v\n%s", page, err, stderr.String())
			}
			text := string(out)
			want := map[string][]string{
				"man1/qsub.1":   {"SYNOPSIS", "-l resource_list", "Resources, e.g. select=2:ncpus=4"},
				"man8/strata.8": {"--config", "tls", "--host"},
			}[page]
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("man -l %s: no %q in\n%s", page, w, text)
				}
			}
		}
	})

	t.Run("example configurations load", func(t *testing.T) {
		etc := filepath.Join(dest, "etc/strata")
		if _, err := server.LoadConfig(filepath.Join(etc, "server.toml.example")); err != nil {
			t.Errorf("server.toml.example: %v", err)
		}
		if _, err := mom.LoadConfig(filepath.Join(etc, "mom.toml.example")); err != nil {
			t.Errorf("mom.toml.example: %v", err)
		}
		for _, f := range []string{"server.toml.example", "mom.toml.example"} {
			if b, _ := os.ReadFile(filepath.Join(etc, f)); bytes.Contains(b, []byte("@")) {
				t.Errorf("%s: placeholder left:\n%s", f, b)
			}
		}
	})

	t.Run("systemd units", func(t *testing.T) {
		unitDir := filepath.Join(dest, "etc/systemd/system")
		for _, u := range []string{"strata-server.service", "strata-mom.service"} {
			b, err := os.ReadFile(filepath.Join(unitDir, u))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b, []byte("ExecStart=/usr/local/bin/strata ")) || bytes.Contains(b, []byte("@")) {
				t.Errorf("%s: ExecStart not pointing at the installed binary:\n%s", u, b)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(unitDir, "strata-mom.service")); !regexp.MustCompile(`(?m)^Delegate=yes$`).Match(b) {
			t.Error("strata-mom.service lacks Delegate=yes")
		}
		if _, err := exec.LookPath("systemd-analyze"); err != nil {
			t.Skip("systemd-analyze is not installed: the units are not verified")
		}
		// verify checks that ExecStart exists and that Documentation=
		// pages open: point both at the DESTDIR tree.
		vdir := t.TempDir()
		var files []string
		for _, u := range []string{"strata-server.service", "strata-mom.service"} {
			b, _ := os.ReadFile(filepath.Join(unitDir, u))
			b = bytes.ReplaceAll(b, []byte("/usr/local/bin/strata"), []byte(bin))
			f := filepath.Join(vdir, u)
			os.WriteFile(f, b, 0o644)
			files = append(files, f)
		}
		cmd := exec.Command("systemd-analyze", append([]string{"verify"}, files...)...)
		cmd.Env = append(os.Environ(), "MANPATH="+filepath.Join(usr, "share/man"))
		out, err := cmd.CombinedOutput()
		// verify exits 0 on unknown keys but warns: any output is a failure.
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	})

	t.Run("bash completion", func(t *testing.T) {
		if _, err := exec.LookPath("bash"); err != nil {
			t.Skip("bash is not installed")
		}
		script := filepath.Join(usr, "share/bash-completion/completions/strata")
		out, err := exec.Command("bash", "-c", `source "$1"
COMP_WORDS=(qsub -); COMP_CWORD=1; _strata_pbs; echo "qsub: ${COMPREPLY[*]}"
COMP_WORDS=(strata tls issue --h); COMP_CWORD=3; _strata; echo "tls issue: ${COMPREPLY[*]}"
COMP_WORDS=(strata qdel -); COMP_CWORD=2; _strata; echo "strata qdel: ${COMPREPLY[*]}"`, "bash", script).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		for _, want := range []string{"qsub: -a -A -c", " -l ", "tls issue: --host --help", "strata qdel: -W -x --version"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("completion: no %q in\n%s", want, out)
			}
		}

		// The attack: a server (or anything on PATH answering as qselect)
		// whose answer holds shell syntax must not run it in the user's
		// shell while completing.
		fake, mark := t.TempDir(), filepath.Join(t.TempDir(), "ran")
		os.WriteFile(filepath.Join(fake, "qselect"), []byte("#!/bin/sh\necho '1.srv $(touch "+mark+") `touch "+mark+"` 2.srv'\n"), 0o755)
		cmd := exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(qdel ""); COMP_CWORD=1; _strata_pbs; printf '%s|' "${COMPREPLY[@]}"`, "bash", script)
		cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"))
		got, err := cmd.CombinedOutput()
		if _, statErr := os.Stat(mark); statErr == nil || err != nil {
			t.Errorf("completing qdel ran the server's answer as shell code (%v): %s", err, got)
		}
		if !strings.HasPrefix(string(got), "1.srv|") || !strings.Contains(string(got), "2.srv|") {
			t.Errorf("qdel completion offered %q", got)
		}
	})

	makeInstall(t, "uninstall", dest, build)
	var left []string
	filepath.Walk(dest, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("make uninstall left %v", left)
	}
}

// TestCompletionOffersJobIDs completes qdel's operand against a running
// cluster: the caller's jobs, from qselect.
func TestCompletionOffersJobIDs(t *testing.T) {
	c := startCluster(t, 1, 1)
	id := strings.TrimSpace(c.submit("sleep 60\n", "-h"))
	script := filepath.Join(t.TempDir(), "strata.bash")
	out, err := exec.Command(filepath.Join(binDir, "strata"), "gen-completion").Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(script, out, 0o644)
	cmd := exec.Command("bash", "-c", `source "$1"; COMP_WORDS=(qdel ""); COMP_CWORD=1; _strata_pbs; echo "${COMPREPLY[*]}"`, "bash", script)
	cmd.Env = c.env
	got, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(got), id) {
		t.Errorf("qdel <TAB> offered %q (%v), want %s", got, err, id)
	}
}

// TestServerLogsToJournal starts a server whose stderr is the stream
// JOURNAL_STREAM names, as systemd does: lines carry a priority and no
// timestamp. With stderr elsewhere the format stays plain.
func TestServerLogsToJournal(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command(filepath.Join(binDir, "strata"), "tls", "init", "--dir", filepath.Join(dir, "tls")).CombinedOutput(); err != nil {
		t.Fatalf("tls init: %v\n%s", err, out)
	}
	cfg := fmt.Sprintf(`name = "jt"
data_dir = %q
socket = %q
api_addr = "127.0.0.1:0"
raft_addr = "127.0.0.1:%d"
fast_raft = true
[tls]
ca_file = %q
cert_file = %q
key_file = %q
`, filepath.Join(dir, "data"), filepath.Join(dir, "s.sock"), 20000+os.Getpid()%20000,
		filepath.Join(dir, "tls/ca.pem"), filepath.Join(dir, "tls/server.pem"), filepath.Join(dir, "tls/server-key.pem"))
	os.WriteFile(filepath.Join(dir, "server.toml"), []byte(cfg), 0o644)
	logf, err := os.Create(filepath.Join(dir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	var st unix.Stat_t
	unix.Fstat(int(logf.Fd()), &st)
	cmd := exec.Command(filepath.Join(binDir, "strata"), "server", "--config", filepath.Join(dir, "server.toml"))
	cmd.Stderr = logf
	cmd.Env = append(os.Environ(), fmt.Sprintf("JOURNAL_STREAM=%d:%d", st.Dev, st.Ino))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var b []byte
	waitFor(t, 20*time.Second, "the server to lead (log "+logf.Name()+")", func() bool {
		b, _ = os.ReadFile(logf.Name())
		return bytes.Contains(b, []byte("became leader"))
	})
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if !regexp.MustCompile(`^<[0-7]>\S`).MatchString(sc.Text()) || regexp.MustCompile(`^<\d>\d{4}[-/]`).MatchString(sc.Text()) {
			t.Errorf("journal line without priority or with a timestamp: %q", sc.Text())
		}
	}
	if !bytes.Contains(b, []byte("<6>server jt: api on")) {
		t.Errorf("no info line for the start:\n%s", b)
	}
}
