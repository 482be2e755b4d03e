package pbscmd

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/strata-hpc/strata/server/api"
)

// interactiveHello bounds how long a connection may take to present the
// session cookie: a stray or hostile connection cannot hold qsub up.
const interactiveHello = 10 * time.Second

// interactiveWait is qsub -I's side of an interactive job: it listens for
// the job's agent, which connects once the job starts
// (server/api/interactive.go), then ties the terminal to the job's shell.
type interactiveWait struct {
	ln     net.Listener
	addr   string // host:port as sent in the submission
	cookie string
}

// listenInteractive opens the port the agent will connect to and puts its
// address and a fresh cookie into the submission.
func listenInteractive(env *Env, req *api.SubmitRequest) (*interactiveWait, error) {
	host, err := env.Hostname()
	if err != nil {
		return nil, failErr(1, "cannot determine the host name: %v", err)
	}
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		return nil, failErr(1, "cannot listen for the interactive session: %v", err)
	}
	secret := make([]byte, api.InteractiveCookieLen/2)
	if _, err := rand.Read(secret); err != nil {
		ln.Close()
		return nil, failErr(1, "cannot make a session cookie: %v", err)
	}
	it := &interactiveWait{ln: ln, cookie: hex.EncodeToString(secret)}
	req.Interactive = net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	req.InteractiveCookie = it.cookie
	it.addr = req.Interactive
	return it, nil
}

func (it *interactiveWait) close() { it.ln.Close() }

// run waits for the job to start and then is its terminal until it ends;
// the exit status is the job's.
func (it *interactiveWait) run(ctx context.Context, env *Env, s *session, id string) int {
	fmt.Fprintf(env.Stdout, "qsub: waiting for job %s to start\n", id)
	conns := make(chan agentConn)
	go it.accept(ctx, conns)
	conn, code, ok := waitForSession(ctx, env, s, id, conns)
	if !ok {
		return code
	}
	defer conn.Close()
	fmt.Fprintf(env.Stdout, "qsub: job %s ready\n\n", id)
	status := relayTerminal(env, conn)
	fmt.Fprintf(env.Stdout, "\nqsub: job %s completed\n", id)
	return status & 0xff
}

// agentConn is the job's agent once it proved itself; in is the reader
// that took its greeting (it may hold the first output already).
type agentConn struct {
	net.Conn
	in *api.FrameReader
}

// accept hands over the first connection that presents the cookie;
// others are closed.
func (it *interactiveWait) accept(ctx context.Context, out chan<- agentConn) {
	for {
		c, err := it.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			in, ok := it.hello(c)
			if !ok {
				c.Close()
				return
			}
			select {
			case out <- agentConn{Conn: c, in: in}:
			case <-ctx.Done():
				c.Close()
			}
		}()
	}
}

// hello reads the agent's first frame and checks the cookie in constant
// time.
func (it *interactiveWait) hello(c net.Conn) (*api.FrameReader, bool) {
	c.SetDeadline(time.Now().Add(interactiveHello))
	in := api.NewFrameReader(c)
	typ, p, err := in.Next()
	if err != nil || typ != api.FrameHello {
		return nil, false
	}
	_, cookie, ok := api.ParseHello(p)
	if !ok || subtle.ConstantTimeCompare([]byte(cookie), []byte(it.cookie)) != 1 {
		return nil, false
	}
	c.SetDeadline(time.Time{})
	return in, true
}

// waitForSession waits for the agent's connection while watching the job:
// a job deleted (or failed) before it started ends the wait.
func waitForSession(ctx context.Context, env *Env, s *session, id string, conns <-chan agentConn) (agentConn, int, bool) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case c := <-conns:
			return c, 0, true
		case <-ctx.Done():
			return agentConn{}, 1, false
		case <-tick.C:
			resp, err := s.client.Jobs(ctx, []string{id}, true)
			if err != nil {
				if reportConnect(env.Stderr, "qsub", err) {
					return agentConn{}, 1, false
				}
				continue
			}
			if len(resp.Jobs) == 1 && resp.Jobs[0].IsFinished() {
				fmt.Fprintf(env.Stderr, "qsub: job %s apparently deleted\n", id)
				return agentConn{}, blockedExitDeleted, false
			}
		}
	}
}

// relayTerminal ties qsub's stdin and stdout to the session until the
// agent reports the exit status. A terminal on stdin is put in raw mode
// (keys, ^C included, go to the job's terminal) and its size follows
// resizes; other input is fed to the job's shell as typed commands, as
// PBS does.
func relayTerminal(env *Env, conn agentConn) int {
	out := api.NewFrameWriter(conn)
	if f, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if old, err := term.MakeRaw(int(f.Fd())); err == nil {
			defer term.Restore(int(f.Fd()), old)
		}
		stop := followWindowSize(f, out)
		defer stop()
	}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := env.Stdin.Read(buf)
			if n > 0 && out.Data(buf[:n]) != nil {
				return
			}
			if err != nil {
				out.Write(api.FrameEOF, nil)
				return
			}
		}
	}()
	for {
		typ, p, err := conn.in.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(env.Stderr, "\r\nqsub: lost the interactive session: %v\r\n", err)
			}
			return 1
		}
		switch typ {
		case api.FrameData:
			env.Stdout.Write(p)
		case api.FrameExit:
			code, _ := api.ParseExit(p)
			return code
		}
	}
}

// followWindowSize sends the terminal's size now and after every SIGWINCH.
func followWindowSize(f *os.File, out *api.FrameWriter) (stop func()) {
	send := func() {
		if cols, rows, err := term.GetSize(int(f.Fd())); err == nil {
			out.Winsize(uint16(rows), uint16(cols))
		}
	}
	send()
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				send()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
