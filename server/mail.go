package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore/manager"
)

// Mail to job and reservation owners (docs/reservations.md, "Mail";
// docs/configuration.md): PBS's messages, piped to the local sendmail
// (mail_program) as `<program> -f <mail_from> <recipient>...`. Only the
// leader mails, after the change it reports is committed, so a message is
// sent once per event. Without a mail program nothing is sent.

// defaultMailProgram is PBS's SENDMAIL_CMD.
const defaultMailProgram = "/usr/sbin/sendmail"

// mailTimeout bounds one run of the mail program.
const mailTimeout = 30 * time.Second

// At most maxMailers runs of the mail program at once; beyond
// maxMailBacklog messages waiting, new ones are dropped (and logged), so a
// burst of ending jobs cannot fill the server host with processes.
const (
	maxMailers     = 4
	maxMailBacklog = 1000
)

// mailLimits are the server's mail slots and backlog count.
type mailLimits struct {
	slots   chan struct{}
	waiting *atomic.Int64
}

func newMailLimits() mailLimits {
	return mailLimits{slots: make(chan struct{}, maxMailers), waiting: new(atomic.Int64)}
}

// Mail points (PBS letters).
const (
	mailAbort   = 'a'
	mailBegin   = 'b'
	mailEnd     = 'e'
	mailConfirm = 'c'
)

// mailProgram is the program to run, or "" when mail is off (none
// installed).
func mailProgram(cfg *model.ServerConfig) string {
	p := cfg.MailProgram
	if p == "" {
		p = defaultMailProgram
	}
	if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return ""
	}
	return p
}

func mailFrom(cfg *model.ServerConfig) string {
	if cfg.MailFrom != "" {
		return cfg.MailFrom
	}
	return "adm"
}

// mailRecipients is Mail_Users, or the owner (user@host) when it is
// empty; entries that are not plain addresses are dropped, so that no
// value reaches the program as an option or a header.
func mailRecipients(mailUsers, owner string) []string {
	list := strings.FieldsFunc(mailUsers, func(r rune) bool { return r == ',' || r == ' ' })
	if len(list) == 0 {
		list = []string{owner}
	}
	var out []string
	for _, a := range list {
		if manager.ValidMailAddress(a) {
			out = append(out, a)
		}
	}
	return out
}

// checkMailUsers validates a Mail_Users value (-M).
func checkMailUsers(v string) error {
	for _, a := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !manager.ValidMailAddress(a) {
			return model.Errorf(model.PBSEBadAttrVal, " Mail_Users")
		}
	}
	return nil
}

// sendMail pipes one message to the mail program in the background; a
// failure is logged, never returned (mail must not hold up the server).
func (s *Server) sendMail(cfg *model.ServerConfig, to []string, subject, body string) {
	prog := mailProgram(cfg)
	if prog == "" || len(to) == 0 {
		return
	}
	from := mailFrom(cfg)
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "To: %s\nSubject: %s\n\n%s", strings.Join(to, " "), subject, body)
	args := append([]string{"-f", from}, to...)
	if s.mail.waiting.Add(1) > maxMailBacklog {
		s.mail.waiting.Add(-1)
		s.logger.Printf("mail to %s (%s) dropped: %d messages already waiting", strings.Join(to, " "), subject, maxMailBacklog)
		return
	}
	go func() {
		s.mail.slots <- struct{}{}
		s.mail.waiting.Add(-1)
		defer func() { <-s.mail.slots }()
		ctx, cancel := context.WithTimeout(context.Background(), mailTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, prog, args...)
		cmd.Stdin = &msg
		if out, err := cmd.CombinedOutput(); err != nil {
			s.logger.Printf("mail to %s (%s): %v: %s", strings.Join(to, " "), subject, err, bytes.TrimSpace(out))
		}
	}()
}

// mailJob sends a job's mail for point p when its Mail_Points ask for it
// (default "a"; "n" none). text follows PBS's standard line.
func (s *Server) mailJob(cfg *model.ServerConfig, j *model.Job, p rune, text string) {
	points := j.Mail
	if points == "" {
		points = "a"
	}
	if strings.ContainsRune(points, 'n') || !strings.ContainsRune(points, p) {
		return
	}
	std := map[rune]string{mailAbort: "Aborted by PBS Server ", mailBegin: "Begun execution", mailEnd: "Execution terminated"}[p]
	body := fmt.Sprintf("PBS Job Id: %s\nJob Name:   %s\n", j.ID, j.Name)
	if h := j.ExecHost(); h != "" {
		body += "Exec host:  " + h + "\n"
	}
	body += std + "\n"
	if text != "" {
		body += text + "\n"
	}
	s.sendMail(cfg, mailRecipients(j.MailTo, j.Owner), "PBS JOB "+j.ID, body)
}

// mailResv sends a reservation's mail for point p when its Mail_Points ask
// for it (default "ac").
func (s *Server) mailResv(cfg *model.ServerConfig, r *model.Reservation, p rune, text string) {
	points := r.ResvMailPoints()
	if strings.ContainsRune(points, 'n') || !strings.ContainsRune(points, p) {
		return
	}
	std := map[rune]string{
		mailAbort:   "Reservation removed",
		mailBegin:   "Reservation period starting",
		mailEnd:     "Reservation period ended",
		mailConfirm: "Reservation transitioned from state UNCONFIRMED to CONFIRMED",
	}[p]
	body := fmt.Sprintf("PBS Reservation Id: %s\nReservation Name:   %s\n%s\n", r.ID, r.Name, std)
	if text != "" {
		body += text + "\n"
	}
	s.sendMail(cfg, mailRecipients(r.MailUsers, r.Owner), "PBS RESERVATION "+r.ID, body)
}

// pbsDate formats a time as PBS's logs do ("Thu Nov 26 14:00:00 2026").
func pbsDate(t int64) string {
	return time.Unix(t, 0).Format("Mon Jan 02 15:04:05 2006")
}
