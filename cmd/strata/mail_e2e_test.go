//go:build e2e

package main

// Mail for jobs and reservations (docs/reservations.md and
// docs/configuration.md, "Mail"): the server pipes PBS's messages to
// mail_program as `<program> -f <mail_from> <recipients>`. The program here
// is a real executable that keeps each message in a file of its own.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeSendmail installs a mail program that stores each message (its
// arguments, then what it read) in dir/mail.*; it returns a function
// listing the messages so far.
func (c *cluster) fakeSendmail() func() []string {
	c.t.Helper()
	dir := filepath.Join(c.work, "mailbox")
	os.MkdirAll(dir, 0o755)
	prog := c.writeHook("sendmail", "#!/bin/sh\nf=$(mktemp "+dir+"/mail.XXXXXX)\n{ echo \"ARGS: $*\"; cat; } > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"\n")
	c.must("qmgr", "-c", "set server mail_program = "+prog)
	c.must("qmgr", "-c", "set server mail_from = strata-admin")
	return func() []string {
		files, _ := filepath.Glob(filepath.Join(dir, "mail.*"))
		var out []string
		for _, f := range files {
			if strings.HasSuffix(f, ".tmp") {
				continue
			}
			if b, err := os.ReadFile(f); err == nil && len(b) > 0 {
				out = append(out, string(b))
			}
		}
		return out
	}
}

// mailWith waits for a message containing every one of parts.
func mailWith(t *testing.T, mails func() []string, parts ...string) string {
	t.Helper()
	var found string
	waitFor(t, 20*time.Second, "mail with "+strings.Join(parts, " | "), func() bool {
		for _, m := range mails() {
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(m, p)
			}
			if ok {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

func TestMailJobsAndReservations(t *testing.T) {
	c := startCluster(t, 1, 2)
	host, _ := os.Hostname()
	mails := c.fakeSendmail()
	for _, bad := range []string{"set server mail_program = bin/sendmail", "set server mail_from = -oQ/tmp/x", `set server mail_from = "a b"`} {
		if r := c.run("qmgr", "-c", bad); r.code == 0 {
			t.Errorf("qmgr %q accepted", bad)
		}
	}

	// A reservation with -m abce: confirmed, begins, ends.
	start := time.Now().Add(4 * time.Second).Truncate(time.Second)
	id, _ := c.rsub("-m", "abce", "-M", "alice@example.org", "-N", "demo", "-R", at(start), "-D", "4", "-l", "select=1:ncpus=1")
	m := mailWith(t, mails, "Reservation transitioned from state UNCONFIRMED to CONFIRMED")
	want := "ARGS: -f strata-admin alice@example.org\nTo: alice@example.org\nSubject: PBS RESERVATION " + id + "\n\n" +
		"PBS Reservation Id: " + id + "\nReservation Name:   demo\nReservation transitioned from state UNCONFIRMED to CONFIRMED\n"
	if m != want {
		t.Errorf("confirmation mail:\n%q\nwant\n%q", m, want)
	}
	mailWith(t, mails, "Subject: PBS RESERVATION "+id, "Reservation period starting")
	mailWith(t, mails, "Subject: PBS RESERVATION "+id, "Reservation period ended")

	// Default mail points "ac", to the owner: confirmed, then deleted.
	other, state := c.rsub("-I", "20", "-R", at(time.Now().Add(time.Hour)), "-D", "60")
	if state != "CONFIRMED" {
		t.Fatalf("second reservation: %s", state)
	}
	mailWith(t, mails, "ARGS: -f strata-admin root@"+host+"\n", "Subject: PBS RESERVATION "+other, "CONFIRMED")
	c.must("pbs_rdel", other)
	m = mailWith(t, mails, "Subject: PBS RESERVATION "+other, "Reservation removed")
	if !strings.Contains(m, "Reservation "+other+" deleted at request of root@") {
		t.Errorf("deletion mail: %q", m)
	}

	// Jobs: -m be to bob; the default (a) when the job is deleted; and a
	// Mail_Users entry that would be an option of the mail program is
	// dropped, never passed.
	job := c.submit("exit 0\n", "-m", "be", "-M", "bob@example.org", "-N", "mailer")
	m = mailWith(t, mails, "Subject: PBS JOB "+job, "Begun execution")
	if !strings.HasPrefix(m, "ARGS: -f strata-admin bob@example.org\nTo: bob@example.org\nSubject: PBS JOB "+job+"\n\nPBS Job Id: "+job+"\nJob Name:   mailer\nExec host:  ") {
		t.Errorf("begin mail: %q", m)
	}
	m = mailWith(t, mails, "Subject: PBS JOB "+job, "Execution terminated")
	if !strings.Contains(m, "Exit_status=0\n") {
		t.Errorf("end mail: %q", m)
	}
	evil := c.submit("exit 0\n", "-m", "be", "-M", "-X/tmp/pwn")
	victim := c.submit("sleep 100\n")
	c.waitState(victim, 20*time.Second, "R")
	c.must("qdel", victim)
	m = mailWith(t, mails, "Subject: PBS JOB "+victim, "Aborted by PBS Server")
	if !strings.HasPrefix(m, "ARGS: -f strata-admin root@"+host+"\n") {
		t.Errorf("abort mail: %q", m)
	}
	c.waitState(evil, 20*time.Second, "F")
	for _, m := range mails() {
		if strings.Contains(m, "-X") || strings.Contains(m, evil) {
			t.Errorf("a Mail_Users entry reached the mail program: %q", m)
		}
	}
	held := c.submit("exit 0\n", "-h")
	c.must("qdel", held)
	m = mailWith(t, mails, "Subject: PBS JOB "+held, "Aborted by PBS Server")
	if !strings.Contains(m, "Job deleted at request of root@"+host) {
		t.Errorf("mail of a queued job deleted: %q", m)
	}
	// No mail for a job that asked for none.
	quiet := c.submit("exit 0\n", "-m", "n")
	c.waitState(quiet, 20*time.Second, "F")
	for _, m := range mails() {
		if strings.Contains(m, quiet) {
			t.Errorf("mail for a job with -m n: %q", m)
		}
	}
}
