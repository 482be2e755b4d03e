package shepherd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/creack/pty"

	"github.com/strata-hpc/strata/server/api/ttyframe"
)

// interactiveDial bounds the connection to a waiting qsub -I.
const interactiveDial = 15 * time.Second

// interactiveSession is the agent's end of a qsub -I session: a login
// shell on a pseudo-terminal, its bytes relayed to and from the qsub that
// waits on the submission host (protocol: server/api/interactive.go). The
// shell is the job: walltime, signals, qdel and the cgroup apply to it as
// to a batch job, and its end ends the session.
type interactiveSession struct {
	conn   net.Conn
	out    *ttyframe.FrameWriter
	master *os.File // the agent's side of the terminal
	tty    *os.File // the shell's side; closed here once the shell has it
	logf   func(string, ...any)

	relayed chan struct{} // closed when the shell's output is drained
	once    sync.Once
}

// openInteractive connects to the job's qsub, proves it speaks for the
// job, opens a terminal and turns cmd into the owner's login shell on it.
func (r *jobRunner) openInteractive(cmd *exec.Cmd) error {
	j := r.job
	conn, err := net.DialTimeout("tcp", j.InteractiveAddr, interactiveDial)
	if err != nil {
		return fmt.Errorf("interactive job: cannot reach qsub at %s: %w", j.InteractiveAddr, err)
	}
	out := ttyframe.NewFrameWriter(conn)
	if err := out.Write(ttyframe.FrameHello, ttyframe.HelloPayload(j.ID, j.InteractiveCookie)); err != nil {
		conn.Close()
		return fmt.Errorf("interactive job: greet qsub: %w", err)
	}
	master, tty, err := pty.Open()
	if err != nil {
		conn.Close()
		return fmt.Errorf("interactive job: open a terminal: %w", err)
	}
	if r.asRoot {
		// The terminal is the owner's for the session, as login gives it.
		if err := os.Chown(tty.Name(), r.id.UID, r.id.GID); err != nil {
			master.Close()
			tty.Close()
			conn.Close()
			return fmt.Errorf("interactive job: terminal owner: %w", err)
		}
	}
	shell := jobShell(j, r.id)
	cmd.Path = shell
	// A leading "-" makes the shell a login shell, as PBS starts it.
	cmd.Args = []string{"-" + filepath.Base(shell)}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0 // the child's stdin
	r.session = &interactiveSession{conn: conn, out: out, master: master, tty: tty, logf: r.logger.Printf, relayed: make(chan struct{})}
	return nil
}

// relay starts moving bytes once the shell runs: the terminal's output to
// qsub, and qsub's input, window sizes and end of input to the terminal.
// When qsub goes away the terminal is hung up, which ends the shell.
func (s *interactiveSession) relay() {
	s.tty.Close() // the shell holds it; the master sees EOF when it exits
	go func() {
		defer close(s.relayed)
		buf := make([]byte, 32<<10)
		for {
			n, err := s.master.Read(buf)
			if n > 0 {
				if s.out.Data(buf[:n]) != nil {
					return
				}
			}
			if err != nil {
				return // EIO once no process holds the terminal
			}
		}
	}()
	go func() {
		in := ttyframe.NewFrameReader(s.conn)
		for {
			typ, p, err := in.Next()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					s.logf("interactive session: qsub went away (%v): hanging up", err)
				}
				s.hangup()
				return
			}
			switch typ {
			case ttyframe.FrameData:
				if _, err := s.master.Write(p); err != nil {
					return
				}
			case ttyframe.FrameWinsize:
				if rows, cols, ok := ttyframe.ParseWinsize(p); ok {
					_ = pty.Setsize(s.master, &pty.Winsize{Rows: rows, Cols: cols})
				}
			case ttyframe.FrameEOF:
				// End of qsub's input: the terminal's end-of-file character,
				// which makes the shell exit at the start of a line.
				_, _ = s.master.Write([]byte{4})
			}
		}
	}()
}

// say writes a line of the agent's own to the owner's terminal (the
// walltime kill message, which a batch job finds in its .e file).
func (s *interactiveSession) say(msg string) {
	_ = s.out.Data([]byte("\r\n" + msg + "\r\n"))
}

// finish sends the shell's output still in the terminal, then the exit
// status, and closes the session.
func (s *interactiveSession) finish(exit int) {
	select {
	case <-s.relayed:
	case <-time.After(2 * time.Second):
		// A process that escaped the kill still holds the terminal.
	}
	_ = s.out.Exit(exit)
	s.hangup()
}

// hangup closes the terminal and the connection: the shell, if it still
// runs, gets SIGHUP.
func (s *interactiveSession) hangup() {
	s.once.Do(func() {
		s.master.Close()
		s.conn.Close()
	})
}

// abandon releases a session whose shell never started.
func (s *interactiveSession) abandon() {
	s.tty.Close()
	s.hangup()
}
