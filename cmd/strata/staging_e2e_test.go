//go:build e2e

package main

// Output delivery and file staging without a shared file system (issue
// 11): "otherhost" is a real SSH server with SFTP started by this test on
// loopback (internal/sshtest); the agent reaches it through its
// [ssh.addresses] entry and checks its key against nobody's known_hosts.
// A plain user's job delivers -o there, stages files in and out, a bad
// host key keeps the output in undelivered/ with the comment and
// tracejob saying so, and a failed stage-in makes the job wait (W, 37).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/sshtest"
)

func TestStagingOverSSH(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to submit as nobody")
	}
	c := startCluster(t, 1, 2)
	key, err := sshtest.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	remote := filepath.Join(c.work, "otherhost")
	mkdirMode(t, remote, 0o777)
	mkdirMode(t, filepath.Join(remote, "results"), 0o777)
	srv, err := sshtest.Start(remote, key.Signer.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	// nobody's SSH files: its key and a known_hosts entry for otherhost.
	userSSH := filepath.Join(c.work, "userssh")
	mkdirMode(t, userSSH, 0o755)
	udir := filepath.Join(userSSH, "nobody")
	mkdirMode(t, udir, 0o700)
	os.Chown(udir, 65534, 65534)
	writeAs(t, filepath.Join(udir, "id_ed25519"), string(key.PEM), 0o600, 65534)
	goodKnown := srv.KnownHostsLine("otherhost") + "\n"
	writeAs(t, filepath.Join(udir, "known_hosts"), goodKnown, 0o644, 65534)

	// The agent learns where otherhost is and where users' SSH files
	// are; a restart applies it.
	conf := filepath.Join(c.dir, "node1", "mom.toml")
	extra := "\n[ssh]\nidentity_files = [\"" + userSSH + "/%u/id_ed25519\"]\n" +
		"user_known_hosts = [\"" + userSSH + "/%u/known_hosts\"]\n" +
		"connect_timeout = \"5s\"\n[ssh.addresses]\notherhost = \"" + srv.Addr + "\"\n"
	appendFile(t, conf, extra)
	c.kill9("node1")
	c.restart()

	work := filepath.Join(c.work, "exec")
	mkdirMode(t, work, 0o777)
	os.WriteFile(filepath.Join(remote, "in.dat"), []byte("input from otherhost\n"), 0o644)
	script := filepath.Join(c.work, "stage.sh")
	os.WriteFile(script, []byte("cat "+work+"/in.dat\ncat "+work+"/in.dat > "+work+"/r1.res\necho two > "+work+"/r2.res\n"), 0o644)

	t.Run("deliver and stage", func(t *testing.T) {
		r := c.runAs(nobody, "", "qsub", "-S", "/bin/sh", "-j", "oe", "-o", "otherhost:"+remote+"/job.out",
			"-W", "stagein="+work+"/in.dat@otherhost:"+remote+"/in.dat",
			"-W", "stageout="+work+"/*.res@otherhost:"+remote+"/results", script)
		if r.code != 0 {
			t.Fatalf("qsub: %d %s", r.code, r.stderr)
		}
		id := strings.TrimSpace(r.stdout)
		j := c.waitState(id, 60*time.Second, "F")
		if c := str(j["comment"]); str(j["Exit_status"]) != "0" || strings.Contains(c, "could not") || strings.Contains(c, "failed") {
			t.Errorf("exit %v comment %v", j["Exit_status"], j["comment"])
		}
		if str(j["stagein"]) != work+"/in.dat@otherhost:"+remote+"/in.dat" || str(j["stageout"]) != work+"/*.res@otherhost:"+remote+"/results" {
			t.Errorf("qstat -f stagein %v stageout %v", j["stagein"], j["stageout"])
		}
		if b, _ := os.ReadFile(filepath.Join(remote, "job.out")); string(b) != "input from otherhost\n" {
			t.Errorf("delivered output %q", b)
		}
		for name, want := range map[string]string{"r1.res": "input from otherhost\n", "r2.res": "two\n"} {
			if b, _ := os.ReadFile(filepath.Join(remote, "results", name)); string(b) != want {
				t.Errorf("staged-out %s = %q", name, b)
			}
			if _, err := os.Stat(filepath.Join(work, name)); err == nil {
				t.Errorf("%s still on the execution host after stage-out", name)
			}
		}
		if _, err := os.Stat(filepath.Join(work, "in.dat")); err == nil {
			t.Errorf("staged-in file left behind")
		}
		for _, l := range srv.Logins() {
			if l != "nobody" {
				t.Errorf("logged in to otherhost as %q, want the job owner", l)
			}
		}
		if len(srv.Logins()) == 0 {
			t.Errorf("nothing went over SSH")
		}
	})

	t.Run("bad host key", func(t *testing.T) {
		other, err := sshtest.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		_, port, _ := strings.Cut(srv.Addr, ":")
		writeAs(t, filepath.Join(udir, "known_hosts"), "[otherhost]:"+port+" "+other.AuthorizedLine()+"\n", 0o644, 65534)
		defer writeAs(t, filepath.Join(udir, "known_hosts"), goodKnown, 0o644, 65534)
		before := len(srv.Logins())
		r := c.runAs(nobody, "", "qsub", "-j", "oe", "-o", "otherhost:"+remote+"/mitm.out", "--", "/bin/echo", "secret")
		if r.code != 0 {
			t.Fatalf("qsub: %d %s", r.code, r.stderr)
		}
		id := strings.TrimSpace(r.stdout)
		j := c.waitState(id, 60*time.Second, "F")
		comment := str(j["comment"])
		if !strings.Contains(comment, "Output file could not be delivered to otherhost:"+remote+"/mitm.out") ||
			!strings.Contains(comment, "does not match known_hosts") {
			t.Errorf("comment %q", comment)
		}
		kept := filepath.Join(c.dir, "node1", "spool", "undelivered", id+".OU")
		if b, err := os.ReadFile(kept); err != nil || string(b) != "secret\n" {
			t.Errorf("undelivered file %q %v", b, err)
		}
		if !strings.Contains(comment, kept) {
			t.Errorf("comment does not say where the output is kept: %q", comment)
		}
		if tr := c.run("tracejob", id); !strings.Contains(tr.stdout, "does not match known_hosts") {
			t.Errorf("tracejob lacks the delivery failure:\n%s", tr.stdout)
		}
		if _, err := os.Stat(filepath.Join(remote, "mitm.out")); err == nil {
			t.Errorf("output delivered to a host with the wrong key")
		}
		if n := len(srv.Logins()); n != before {
			t.Errorf("authenticated to a host that failed the key check")
		}
	})

	t.Run("stage-in failure waits", func(t *testing.T) {
		r := c.runAs(nobody, "", "qsub", "-W", "stagein="+work+"/none.dat@otherhost:"+remote+"/missing.dat", "--", "/bin/true")
		if r.code != 0 {
			t.Fatalf("qsub: %d %s", r.code, r.stderr)
		}
		id := strings.TrimSpace(r.stdout)
		j := c.waitState(id, 60*time.Second, "W")
		if str(j["substate"]) != "37" || !strings.HasPrefix(str(j["comment"]), "Stage-in failed: Unable to copy file "+work+"/none.dat from otherhost:") {
			t.Errorf("substate %v comment %v", j["substate"], j["comment"])
		}
		c.must("qdel", id)
	})
}

func mkdirMode(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(p, mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
}

func writeAs(t *testing.T, p, body string, mode os.FileMode, uid int) {
	t.Helper()
	os.Remove(p)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	os.Chown(p, uid, uid)
	os.Chmod(p, mode)
}

func appendFile(t *testing.T, p, text string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
